"""The wire's account of its line, read through the meter the parent maps (targets/link/meter.py).

wire.py runs as a file with no sshbench imports, so its half of the layout
is loaded here as the module it is, and fed real datagrams through a socket
pair: what it publishes must read back, through LineMeter, as the seconds
the rate-limited line sat idle.
"""

from __future__ import annotations

import importlib.util
import mmap
import random
import socket
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from sshbench.targets.link.emulated import WIRE
from sshbench.targets.link.meter import SIZE, LineMeter

RATE = 1_000_000.0  # bytes a second: a 1000-byte packet holds the line 1 ms


@pytest.fixture
def wire() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sshbench_wire", WIRE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.METER_SIZE == SIZE, "wire.py and meter.py share one layout"
    return module


@pytest.fixture
def meter() -> Iterator[LineMeter]:
    made = LineMeter()
    yield made
    made.close()


def _direction(wire: ModuleType) -> tuple[Any, socket.socket, socket.socket]:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    ours.setblocking(False)
    theirs.setblocking(False)
    way = wire.Direction(ours.fileno(), theirs.fileno(), 0.0, 0.0, RATE, 0.0, 100, random.Random(1))
    return way, ours, theirs


def test_the_idle_seconds_of_a_window_are_the_gaps_the_line_had_nothing_to_send(wire: ModuleType,
                                                                                meter: LineMeter) -> None:
    way, ours, theirs = _direction(wire)
    shared = mmap.mmap(meter.fd, 2 * SIZE)
    try:
        theirs.send(b"x" * 1000)
        way.take(10.0)  # busy 10.000-10.001
        way.publish(shared, 0)
        at_open = meter.idle_seconds(True, 10.0005)
        for _ in range(3):
            theirs.send(b"x" * 1000)
        way.take(10.5)  # idle 10.001-10.5, then busy 10.5-10.503
        way.publish(shared, 0)
        at_close = meter.idle_seconds(True, 11.0)  # idle again 10.503-11.0
        assert at_open is not None and at_close is not None
        assert at_close - at_open == pytest.approx(0.499 + 0.497)
        assert meter.idle_seconds(False, 11.0) == pytest.approx(11.0), "the way back never wrote: zeros"
    finally:
        shared.close()
        ours.close()
        theirs.close()


def test_a_line_kept_busy_reads_no_idle_time(wire: ModuleType, meter: LineMeter) -> None:
    way, ours, theirs = _direction(wire)
    shared = mmap.mmap(meter.fd, 2 * SIZE)
    try:
        start = 100.0
        theirs.send(b"x" * 1000)
        way.take(start)
        way.publish(shared, SIZE)
        before = meter.idle_seconds(False, start)
        for step in range(1, 50):  # a packet every 1 ms at 1000 bytes a ms: the line is never free
            theirs.send(b"x" * 1000)
            way.take(start + step * 0.001)
            way.publish(shared, SIZE)
        after = meter.idle_seconds(False, start + 0.049)
        assert before is not None and after is not None
        assert after - before == pytest.approx(0.0, abs=1e-9)
    finally:
        shared.close()
        ours.close()
        theirs.close()


def test_a_closed_meter_reads_nothing() -> None:
    made = LineMeter()
    made.close()
    made.close()
    assert made.idle_seconds(True, 1.0) is None
