"""Placement: how the CPUs are halved, how they are named, and that the measuring thread gets its CPUs back."""

from __future__ import annotations

import os
import subprocess
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sshbench.plumbing import placement
from sshbench.plumbing.placement import Placement
from tests.conftest import cpu_list


def test_two_cpus_one_each() -> None:
    assert placement.split(frozenset({0, 1}), core_of=str) == Placement(frozenset({0}), frozenset({1}))


def test_an_odd_cpu_goes_to_the_server() -> None:
    where = placement.split(frozenset({0, 1, 2}), core_of=str)
    assert where == Placement(frozenset({0}), frozenset({1, 2}))
    assert where.describe() == "split: client on CPU 0, server on CPU 1-2"


def test_a_cores_threads_stay_on_one_side() -> None:
    """4 threads on 2 cores, numbered as Linux often does: 0 and 2 share a core, 1 and 3 the other."""
    where = placement.split(frozenset({0, 1, 2, 3}), core_of=lambda cpu: str(cpu % 2))
    assert where == Placement(frozenset({0, 2}), frozenset({1, 3}))
    assert where.describe() == "split: client on CPU 0,2, server on CPU 1,3"


def test_one_core_with_two_threads_is_split_by_thread() -> None:
    assert placement.split(frozenset({0, 1}), core_of=lambda cpu: "0-1") == Placement(frozenset({0}),
                                                                                      frozenset({1}))


def test_nothing_to_split_below_two_cpus() -> None:
    assert placement.split(frozenset({3}), core_of=str) is None
    assert placement.split(None) is None


def test_cpu_lists_as_taskset_prints_them() -> None:
    where = Placement(frozenset({0, 2, 3, 4}), frozenset({7, 9, 10}))
    assert where.describe() == "split: client on CPU 0,2-4, server on CPU 7,9-10"


@given(st.frozensets(st.integers(0, 255), min_size=2, max_size=64))
def test_halves_are_disjoint_cover_all_and_keep_order(cpus: frozenset[int]) -> None:
    where = placement.split(cpus, core_of=str)
    assert where is not None
    assert where.client | where.server == cpus and not where.client & where.server
    assert max(where.client) < min(where.server)
    assert 0 <= len(where.server) - len(where.client) <= 1


@pytest.mark.skipif(len(placement.allowed() or ()) < 2, reason="needs two CPUs to split")
def test_client_side_pins_the_thread_and_gives_its_cpus_back() -> None:
    """In a thread of its own, so the test runner's own CPUs are never touched."""
    seen: dict[str, object] = {}

    def body() -> None:
        before = frozenset(os.sched_getaffinity(0))
        where = placement.split(before)
        with placement.client_side(where):
            seen["inside"] = frozenset(os.sched_getaffinity(0))
            seen["child"] = _child_cpus()
            seen["server"] = placement.server_cpus()
        seen["after"] = frozenset(os.sched_getaffinity(0))
        seen["server after"] = placement.server_cpus()
        seen["where"], seen["before"] = where, before

    thread = threading.Thread(target=body)
    thread.start()
    thread.join(30)
    where = seen["where"]
    assert isinstance(where, Placement)
    assert seen["inside"] == where.client and seen["child"] == where.client  # what it starts inherits them
    assert seen["after"] == seen["before"]
    assert seen["server"] == where.server and seen["server after"] is None  # for the raw TCP control's receiver


def _child_cpus() -> frozenset[int]:
    """The CPUs a process started from this thread may use, from its own /proc/self/status."""
    out = subprocess.run(["grep", "Cpus_allowed_list", "/proc/self/status"], capture_output=True, text=True,
                         check=True, timeout=10).stdout
    return cpu_list(out)
