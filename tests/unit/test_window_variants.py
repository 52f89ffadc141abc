"""A server's receive window as a variant of it (issue 65): `--server dropbear,dropbear:window=4MiB` measures
Dropbear at its 24 KiB default and with `-W 4194304` in one run, the variant a server side of its own
(`dropbear-w4194304`), its window recorded and read by everything that reads a receiver's window, and what limited
the default one said with what the variant moved instead.

The analysis half runs on the recorded three-server run (tests/data/README.md) with its tinysshd side relabelled as
a window variant of Dropbear: a side whose facts say what a real variant's do, with real samples."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

import sshbench.cli
from sshbench.analysis.comparisons.stated import Statements
from sshbench.analysis.physics.advice import limit_of
from sshbench.analysis.physics.limits import limit_findings
from sshbench.analysis.physics.windows import receive_window, variant_ratios
from sshbench.cli import main
from sshbench.cli.parser import parse
from sshbench.cli.run import request_from_args
from sshbench.implementations import DROPBEAR, OPENSSH, TINYSSHD
from sshbench.results.codec import report_to_dict, results_from_dict
from sshbench.results.model import Report
from sshbench.results.views import per_server, side_view
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.servers import embedded_server, server_entry, takes_sshd, variant
from sshbench.targets.servers.dropbear import EmbeddedDropbear
from sshbench.vocabulary.algorithms import AlgorithmLists
from sshbench.vocabulary.errors import ExitCode, UsageError
from sshbench.vocabulary.untrusted import part_name

DATA = Path(__file__).resolve().parents[1] / "data"
VARIANT = "dropbear-w4194304"
MAX = 10 * 1024 * 1024  # Dropbear's sysoptions.h MAX_RECV_WINDOW


# ------------------------------------------------------------------ spelling, parsing, refusals


def test_only_dropbear_declares_a_window_option_with_its_sources_limits() -> None:
    setting = DROPBEAR.window_setting
    assert setting is not None and (setting.flag, setting.default, setting.minimum, setting.maximum) == (
        "-W", 24576, 1, MAX)
    assert setting.default == DROPBEAR.receive_window and setting.argv(4194304) == ["-W", "4194304"]
    assert OPENSSH.window_setting is None and TINYSSHD.window_setting is None


@pytest.mark.parametrize(("given", "name"), [
    ("dropbear:window=4MiB", VARIANT), ("dropbear:window=4194304", VARIANT), (" dropbear : window = 4 MiB ", VARIANT),
    ("dropbear:WINDOW=64KiB", "dropbear-w65536"), ("dropbear:window=10MiB", f"dropbear-w{MAX}"),
    ("dropbear:window=1", "dropbear-w1"), (VARIANT, VARIANT),
    ("dropbear:window=24KiB", "dropbear"), ("dropbear-w24576", "dropbear"),  # its own default: the server itself
    ("dropbear", "dropbear"), ("openssh", "openssh"),
])
def test_a_window_variant_is_spelled_name_window_size_and_named_for_ids(given: str, name: str) -> None:
    assert server_entry(given) == name
    assert part_name(name, "name") == name, "a name case ids, tables and results files take"


@pytest.mark.parametrize(("given", "said"), [
    ("openssh:window=4MiB", "--server openssh:window=4MiB: openssh has no option that sets its receive window, so it "
     "has no window variant (dropbear:window=SIZE sets dropbear -W: 1 to 10485760 bytes, at most 10 MiB, e.g. "
     "dropbear:window=4MiB)"),
    ("tinysshd:window=1MiB", "--server tinysshd:window=1MiB: tinysshd has no option that sets its receive window"),
    ("dropbear:window=11MiB", "--server dropbear:window=11MiB: dropbear -W takes 1 to 10485760 bytes (at most 10 "
     "MiB), not 11534336"),
    ("dropbear-w10485761", "--server dropbear-w10485761: dropbear -W takes 1 to 10485760 bytes"),
    ("openssh-w4194304", "--server openssh-w4194304: openssh has no option that sets its receive window"),
    ("dropbear:window=0", "--server dropbear:window=0: bad size '0'"),
    ("dropbear:window=1.5", "--server dropbear:window=1.5: bad size '1.5'"),
    ("dropbear:size=4MiB", "--server dropbear:size=4MiB: a server's variant is NAME:window=SIZE (dropbear:window="),
    ("dropbear:window", "--server dropbear:window: a server's variant is NAME:window=SIZE"),
])
def test_a_variant_a_server_cannot_take_is_refused_naming_the_server_and_what_it_takes(given: str, said: str) -> None:
    with pytest.raises(UsageError) as raised:
        server_entry(given)
    assert str(raised.value).startswith(said)


@pytest.fixture
def no_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sshbench.cli, "SWEEPING", ())  # the refusals come before any sweep


@pytest.mark.usefixtures("no_sweep")
@pytest.mark.parametrize("servers", ["openssh:window=4MiB,dropbear", "dropbear,tinysshd:window=64KiB",
                                     "dropbear:window=20MiB", "lsh:window=1MiB", "dropbear,dropbear:window=x"])
def test_the_run_refuses_it_up_front_in_one_line_exit_2(servers: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--server", servers, "--plan"]) == ExitCode.USAGE
    captured = capsys.readouterr()
    assert captured.err.startswith("sshbench: error: --server ") and captured.err.count("\n") == 1
    assert not captured.out


def test_each_variant_is_a_server_of_the_run_in_the_order_given() -> None:
    request = request_from_args(parse(["run", "--server", "openssh,dropbear,dropbear:window=4MiB,dropbear:window=24KiB,"
                                       "dropbear:window=4194304,dropbear:window=1MiB"]))
    assert request.servers == ("openssh", "dropbear", VARIANT, "dropbear-w1048576")
    assert variant(VARIANT) == ("dropbear", 4194304) and variant("dropbear") == ("dropbear", None)
    assert variant("tinysshd-w5") == ("tinysshd", 5) and variant("lsh-w5") == ("lsh-w5", None)
    assert not takes_sshd(VARIANT) and takes_sshd("openssh")
    with_keys = request_from_args(parse(["run", "--server", "dropbear:window=4MiB", "--commands", "true",
                                         "--user-keys", "ed25519,ecdsa"]))  # Dropbear's keys, its variant's too
    assert with_keys.servers == (VARIANT,)


def test_the_variant_starts_dropbear_with_w_and_is_named_for_it() -> None:
    client = ClientInfo("/usr/bin/ssh", "OpenSSH_9.2p1", None, AlgorithmLists(), AlgorithmLists(), (), ())
    plain, wide = EmbeddedDropbear(client), embedded_server(VARIANT, client)
    assert isinstance(wide, EmbeddedDropbear)
    assert (plain.name, plain.receive_window) == ("dropbear", None)
    assert (wide.name, wide.receive_window) == (VARIANT, 4194304)
    assert EmbeddedDropbear.name == "dropbear", "the launcher's own name is unchanged"
    for server in (plain, wide):
        server.dropbear, server.key_files = "/usr/sbin/dropbear", ["/k/ed25519"]
    assert plain.server_argv("/k") == ["/usr/sbin/dropbear", "-i", "-s", "-r", "/k/ed25519"]
    assert wide.server_argv("/k") == ["/usr/sbin/dropbear", "-i", "-s", "-r", "/k/ed25519", "-W", "4194304"]


# ------------------------------------------------------------------ the recorded window, and who reads it


def _relabelled() -> dict[str, Any]:
    """The recorded openssh, dropbear, tinysshd run with its third side made a window variant of Dropbear."""
    text = gzip.decompress((DATA / "results-servers-openssh-dropbear-tinysshd.json.gz").read_bytes()).decode()
    data: dict[str, Any] = json.loads(text.replace("tinysshd", VARIANT))
    embedded = data["environment"]["builds"][2]["own"]["server"]["embedded"]
    embedded.update(implementation="dropbear", receive_window=4194304,
                    command=["/usr/sbin/dropbear", "-i", "-s", "-r", "/k/ed25519", "-W", "4194304"])
    return data


@pytest.fixture(scope="module")
def run() -> Report:
    (found,) = results_from_dict(_relabelled())
    return found


def test_the_variants_window_is_recorded_and_read_wherever_a_receivers_window_is(run: Report) -> None:
    assert receive_window(run, "upload", build="dropbear") == 24576
    assert receive_window(run, "upload", build=VARIANT) == 4194304
    assert receive_window(run, "upload", build=VARIANT, method="sftp") == 64 * 32768, "sftp's own, inside it"
    assert receive_window(run, "download", build=VARIANT) == OPENSSH.receive_window, "our ssh receives downloads"
    view = side_view(run, VARIANT)
    assert receive_window(view, "upload") == 4194304, "the side's own view reads its facts"
    limit = limit_of(view, "upload")
    assert limit is not None and limit.small_window is None, "4 MiB is no small window"
    default = limit_of(side_view(run, "dropbear"), "upload")
    assert default is not None and default.small_window is not None and default.small_window[0] == 24576


def test_the_default_windows_limit_says_what_the_variant_moved_in_the_same_case(run: Report) -> None:
    case = "cipher:chacha20-poly1305@openssh.com:upload#dropbear"
    (said,) = variant_ratios(run, "dropbear", case)
    joined = run.joined()
    base, other = joined[case].summary, joined[case.replace("#dropbear", f"#{VARIANT}")].summary
    assert base is not None and other is not None
    expected = Statements(run).of(base.case_id, other.case_id)  # the build cross pair, as the run's rule decided it
    assert expected is not None
    ratio, low, high = expected.ratio, expected.low, expected.high
    assert low is not None and high is not None and low <= ratio <= high
    assert said == f"dropbear -W 4194304 moved {ratio:.2f}x [{low:.2f}, {high:.2f}] as much here"
    assert variant_ratios(run, VARIANT, case.replace("#dropbear", f"#{VARIANT}")) == [], "a variant has none"
    assert variant_ratios(run, "openssh", "cipher:chacha20-poly1305@openssh.com:upload#openssh") == []
    assert variant_ratios(run, "dropbear", "cipher:aes128-ctr:upload#dropbear") == [], "not measured on the variant"
    sides = [view.environment.builds[0].name for view in per_server(run)]
    lines = {side: [f.text for f in limit_findings(run) if f.server == side] for side in sides}
    (upload, *_) = lines["dropbear"]
    assert upload.startswith("upload: fastest chacha20-poly1305@openssh.com at ") and "24 KiB" in upload
    assert upload.endswith(f"; {said}")
    assert not any("moved" in line for line in lines["openssh"] + lines[VARIANT])
    assert [f.limit.text for f in limit_findings(run) if f.server == "dropbear"] == \
        [line.split("; dropbear -W")[0] for line in lines["dropbear"]]


def test_the_new_facts_round_trip_and_a_schema_14_file_loads_without_them(run: Report) -> None:
    data = json.loads(json.dumps(report_to_dict(run)))
    (again,) = results_from_dict(data)
    own = again.environment.builds[2].own
    assert own is not None and own.server.embedded is not None
    assert own.server.embedded.receive_window == 4194304 and "-W" in own.server.embedded.command
    old = _relabelled()
    old["schema_version"] = 14
    for side in old["environment"]["builds"]:
        side["own"]["server"]["embedded"].pop("receive_window", None)
        side["own"]["server"]["embedded"].pop("command", None)
    (before,) = results_from_dict(old)
    embedded = before.environment.builds[2].own.server.embedded  # type: ignore[union-attr]
    assert embedded is not None and embedded.receive_window is None and embedded.command == []
    assert receive_window(before, "upload", build=VARIANT) == DROPBEAR.receive_window, "no record: the default"
