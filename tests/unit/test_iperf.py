"""iperf3's JSON, recorded from real runs, and what the raw-TCP figure does to the limit verdict."""

from __future__ import annotations

import json

import pytest

from sshbench.analysis.physics.advice import Limit
from sshbench.cli.parser import options_from_args, parse
from sshbench.measure.iperf import IperfError, parse_result
from sshbench.vocabulary.errors import UsageError
from tests.conftest import recorded


def test_the_receivers_count_is_the_figure() -> None:
    text = recorded("iperf3-3.12-reverse-loopback.json")
    received = json.loads(text)["end"]["sum_received"]
    rate, moved = parse_result(text)
    assert rate == pytest.approx(received["bits_per_second"] / 8) and moved == received["bytes"]
    assert rate == pytest.approx(moved / received["seconds"], rel=0.01), "bytes per second, not bits"


def test_iperf3s_own_error_is_kept() -> None:
    with pytest.raises(IperfError, match="unable to connect to server: Connection refused"):
        parse_result(recorded("iperf3-3.12-refused.json"))


@pytest.mark.parametrize("text", ["", "iperf3: error - unable to start listener", '{"end": {}}'])
def test_anything_else_is_an_error_not_a_zero(text: str) -> None:
    with pytest.raises(IperfError):
        parse_result(text)


def _limit(rate: float, tcp: float | None, shares: dict[str, float]) -> Limit:
    return Limit("upload", "aes128-gcm@openssh.com", rate, shares, [s for s, v in shares.items() if v >= 0.85], tcp)


def test_ssh_near_raw_tcp_means_the_link_was_full() -> None:
    limit = _limit(110e6, 117e6, {"client": 0.3, "server": 0.35})
    assert limit.link_full and limit.bound_by == "link (iperf3)"
    assert "ssh carried 94% of it" in limit.text and limit.text.endswith("the link was full")


def test_ssh_far_below_raw_tcp_without_a_full_core_is_not_blamed_on_the_link() -> None:
    limit = _limit(400e6, 4000e6, {"client": 0.3, "server": 0.8})
    assert not limit.link_full and "not the link" in limit.text and "not link" in limit.bound_by


def test_a_full_core_wins_over_the_link() -> None:
    limit = _limit(900e6, 950e6, {"client": 0.97, "server": 0.5})
    assert limit.bound_by == "client CPU" and "CPU-bound on the client" in limit.text


def test_without_iperf3_the_verdict_is_as_before() -> None:
    limit = _limit(400e6, None, {"client": 0.3, "server": 0.5})
    assert limit.bound_by == "link (or shared CPUs)" and "iperf3" not in limit.text


@pytest.mark.parametrize("port", ["0", "65536", "-1"])
def test_an_iperf3_port_outside_tcp_is_one_clear_error(port: str) -> None:
    with pytest.raises(UsageError, match="a TCP port is 1-65535"):
        options_from_args(parse(["run", "--iperf3-port", port]))
    assert options_from_args(parse(["run", "--iperf3-port", "5202"])).iperf3_port == 5202
    assert options_from_args(parse(["run"])).iperf3_port == 5201, "iperf3's own default"
