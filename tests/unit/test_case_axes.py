"""A case is a point on declared axes (results/axes.py): ids, groups and cross pairs are made from that one table,
and no other code splits an id or recognises a part by its name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sshbench.analysis.comparisons.dimensions import DIMENSIONS, cross_pairs
from sshbench.results.axes import AXES, CROSS
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.results.schema import SchemaError

SRC = Path(__file__).resolve().parents[2] / "src" / "sshbench"


def _case(**axes: object) -> Case:
    return Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr", **axes)  # type: ignore[arg-type]


def test_ids_and_groups_spell_each_axis_after_its_sigil_and_leave_plain_values_out() -> None:
    assert _case().id == "cipher:aes128-ctr:upload" and _case().group == "cipher:upload"
    full = _case(method="scp", streams=4, compression="zstd:3", build="hpn", link="rtt=20ms")
    assert full.id == "cipher:aes128-ctr:upload:scp*4~zstd:3#hpn@rtt=20ms"
    assert full.group == "cipher:upload:scp*4~zstd:3#hpn@rtt=20ms" and full.base_group == "cipher:upload:scp"
    assert [axis.name for axis in AXES] == ["method", "streams", "compression", "build", "link", "reuse", "userkey",
                                            "client"]
    reused = Case(CaseKind.COMMAND, Direction.SETUP, command="true", link="rtt=20ms").at("reuse", "reused")
    assert reused.id == "command:true:setup@rtt=20ms+reused" and reused.dims == (("reuse", "reused"),)
    assert reused.group == reused.id and reused.at("reuse", "fresh").dims == ()  # fresh: the plain value


def test_cross_pairs_follow_the_declared_axes_and_their_base_values() -> None:
    assert DIMENSIONS == CROSS == ("build", "streams", "compression", "link", "reuse", "userkey", "client")
    cases = [_case(streams=n, compression=c) for n in (4, 1) for c in ("zstd:3", "off")]
    pairs = {(p.dimension, p.base, p.other) for p in cross_pairs(cases)}
    plain = _case().id
    assert ("streams", plain, _case(streams=4).id) in pairs  # the fewest streams is the base, whatever the order
    assert ("compression", plain, _case(compression="zstd:3").id) in pairs  # no compression is the base


# How an id or group was split before the axes were declared, and how parts were recognised by their names
_SPLITS = re.compile(r"""re\.split\(r?"\[[*~#@]+\]"|\.r?partition\("[@#*~]"\)|\.split\("[@#*~]"\)""")
_NAMES = re.compile(r"""[!=]= "(openssh|hpnssh|dropbear|tinysshd|zstd|lz4|gzip)"|"hpn" in """)
_OWN = ("implementations/", "compressors/", "targets/servers/")
# Splits at "@" that are not of case ids: user@host destinations, name@vendor algorithm names, and the
# recommendation's own per-direction keys ("upload@rtt=20ms", built and read in that one module)
_NOT_IDS = ("results/axes.py", "results/legacy.py", "vocabulary/untrusted.py", "targets/remote.py",
            "vocabulary/algorithms.py", "analysis/config/recommend.py")


def test_no_code_splits_an_id_or_compares_a_parts_name_outside_its_own_module() -> None:
    splits, names = [], []
    for path in SRC.rglob("*.py"):
        where = path.relative_to(SRC).as_posix()
        text = path.read_text()
        if where not in _NOT_IDS:  # legacy.py: old ids mapped to today's axes
            splits += [f"{where}: {m.group(0)}" for m in _SPLITS.finditer(text)]
        if not where.startswith(_OWN):
            names += [f"{where}: {m.group(0)}" for m in _NAMES.finditer(text)]
    assert not splits, splits
    assert not names, names


def test_the_same_cipher_with_another_mac_on_another_side_is_no_cross_pair() -> None:
    """An id leaves a cipher case's MAC out: Dropbear's aes128-ctr with hmac-sha2-256 and OpenSSH's with the -etm
    MAC have ids that differ only by side, yet they are two cases, never one compared across servers."""
    etm = _case(mac="hmac-sha2-256-etm@openssh.com", build="openssh")
    plain = _case(mac="hmac-sha2-256", build="dropbear")
    assert cross_pairs([etm, plain]) == []
    assert [p.dimension for p in cross_pairs([etm, _case(mac=etm.mac, build="dropbear")])] == ["build"]


def test_a_case_is_read_and_moved_along_any_axis_by_name() -> None:
    case = _case(streams=4)
    assert case.value_of("streams") == 4 and case.value_of("link") == ""
    assert case.at("streams", 1) == _case() and case.at("compression", "lz4:1").compression == "lz4:1"


def test_a_results_file_may_hold_only_declared_axes_each_once_in_order_at_a_value_they_parse_to(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The codec's check of Case.dims (untrusted input), with the toy axis of tests/toy_axis.py declared."""
    import sshbench.axes
    from sshbench.results import codec
    from tests.toy_axis import CHUNK

    monkeypatch.setattr(sshbench.axes, "DECLARED", (CHUNK,))
    monkeypatch.setattr(codec, "DECLARED", (CHUNK,))
    codec._check_dims(_case(dims=(("chunk", "16KiB"),)), "cases[0].dims")  # fine
    bad = {(("chunk", "16384"),): "not a value of chunk", (("chunk", "1MiB"),): "not a value of chunk",
           (("chunk", "16KiB"), ("chunk", "32KiB")): "each axis once", (("size", "1"),): "does not know"}
    for dims, words in bad.items():
        with pytest.raises(SchemaError, match=words):
            codec._check_dims(_case(dims=dims), "cases[0].dims")
