"""Cross pairs (analysis/comparisons/dimensions.py): the same case on each value of a dimension against its first
value."""

from __future__ import annotations

import dataclasses

from sshbench.analysis.comparisons.dimensions import cross_pairs, families
from sshbench.results.model import Case, CaseKind, Direction


def _cases() -> list[Case]:
    base = [Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=c) for c in ("aes128-ctr", "aes256-ctr")]
    return [dataclasses.replace(c, link=link, build=build) for build in ("stock", "hpn")
            for link in ("rtt=0", "rtt=80ms") for c in base]


def test_every_case_pairs_with_itself_on_the_first_build_and_the_first_link_given() -> None:
    pairs = cross_pairs(_cases())
    by_dimension = {d: [(p.base, p.other) for p in members] for (d, _), members in families(pairs).items()}
    assert set(by_dimension) == {"build", "link"}
    assert len(by_dimension["build"]) == 4 and len(by_dimension["link"]) == 4  # 2 ciphers x the other dimension
    for base, other in by_dimension["link"]:
        assert base.endswith("@rtt=0") and other == base.replace("@rtt=0", "@rtt=80ms")
    for base, other in by_dimension["build"]:
        assert "#stock" in base and other == base.replace("#stock", "#hpn")


def test_one_value_of_each_dimension_makes_no_cross_pair() -> None:
    assert cross_pairs([c for c in _cases() if c.build == "stock" and c.link == "rtt=0"]) == []
