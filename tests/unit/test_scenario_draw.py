"""bench/scenario_draw.py: the scenario sweep's draw, alone (no network, no sshbench run).

A failing row of the sweep must be measured again as it was, so the same seed must give the same scenarios; and
every scenario must be one sshbench takes as given (its --link text its own parser's canonical form, its argv
one its own parser reads), within the ranges the issue names."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

from sshbench.cli.parser import options_from_args, parse
from sshbench.vocabulary.linkspec import parse_label

# bench/ is not a package: its modules import each other by name, as when run from there
sys.path.append(str(Path(__file__).parents[2] / "bench"))

import scenario_draw
from scenario_draw import Scenario, scenarios

DRAWS = 300


def _drawn(seed: int, count: int = DRAWS) -> list[Scenario]:
    return list(itertools.islice(scenarios(seed), count))


def test_same_seed_same_scenarios_and_another_seed_others() -> None:
    assert _drawn(65) == _drawn(65)
    assert _drawn(65, 20) != _drawn(66, 20)


def test_the_seeds_drawn_before_tinysshd_joined_draw_the_same_with_their_servers() -> None:
    """docs/methodology.md's re-run lines for the first three sweeps: the same scenarios, number for number (the
    third run's row 8, draw 9, was this one), and tinysshd in the draw of today's servers."""
    first = list(itertools.islice(scenarios(3988202138, scenario_draw.FIRST_SERVERS), 9))
    assert first[8].text == ("download, text data, 4 streams, SSH zlib, chacha20-poly1305@openssh.com, dropbear "
                             "over rtt=0,rate=618mbit,mtu=9000")
    assert {s.server for s in _drawn(4)} == set(scenario_draw.SERVERS) >= {"tinysshd"}


def test_tinysshd_is_never_drawn_with_ssh_compression_it_does_not_have() -> None:
    tiny = [s for s in _drawn(5) if s.server == "tinysshd" and not s.commands]
    assert tiny and all(s.compression != "ssh" for s in tiny)


def test_every_link_parses_with_sshbenchs_parser_and_stays_in_range() -> None:
    for scenario in _drawn(1):
        link = parse_label(scenario.link)
        assert link.label == scenario.link, "the canonical text, as a results file names the link"
        assert 0 <= link.rtt_seconds <= scenario_draw.RTT_MAX_MS / 1000
        assert link.rate_bits is None or 5e6 <= link.rate_bits <= 1e9
        assert 0 <= link.loss <= scenario_draw.LOSS_MAX_PERCENT / 100
        assert link.mtu_bytes in (1500, 9000) and link.jitter_seconds == 0 and link.congestion is None


def test_the_draw_covers_each_value_and_each_kind() -> None:
    drawn = _drawn(2)
    transfers = [s for s in drawn if not s.commands]
    links = [parse_label(s.link) for s in drawn]
    assert {s.kind for s in drawn} == {"transfer", "commands"}
    assert {s.server for s in drawn} == set(scenario_draw.SERVERS)
    assert {s.data for s in transfers} == set(scenario_draw.DATA)
    assert {s.streams for s in transfers} == set(scenario_draw.STREAMS)
    assert {s.compression.split(":")[0] for s in transfers} == set(scenario_draw.COMPRESSION)
    assert {s.direction for s in transfers} == set(scenario_draw.DIRECTIONS)
    assert any(link.rate_bits is None for link in links) and any(link.rate_bits for link in links)
    assert any(link.loss == 0 for link in links) and any(link.loss for link in links)
    assert any(link.rtt_seconds == 0 for link in links) and any(link.rtt_seconds for link in links)


def test_every_argv_is_read_by_sshbenchs_own_parser() -> None:
    for scenario in _drawn(3, 60):
        options = options_from_args(parse(["run", *scenario.argv("2m")]))
        assert [link.label for link in options.links] == [scenario.link]
        assert options.time_budget_seconds == 120
        if scenario.commands:
            assert options.commands == ("true",) and scenario.cipher is None
        else:
            assert options.streams == (scenario.streams,) and options.compression == (scenario.compression,)
            assert scenario.cipher is not None and options.data == scenario.data
            assert scenario.cipher in options.ciphers
