"""`--server dropbear,dropbear:window=4MiB` (issue 65): Dropbear at its 24 KiB default window and with `-W 4194304`,
two sides of one run, against real Dropbear servers started by sshbench on loopback (4 samples each: the fewest a
95% interval of their ratio takes).

Nothing here assumes a quiet machine: it checks what was run and recorded (the variant's window in its facts,
`-W 4194304` on the command line of the dropbear that served it, read from /proc while it ran; the default one
without), that each side's samples reached its own server, and that the default one's limit says what the variant
moved in the same case. Never which was faster: that is the machine's to say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.conftest import leftovers, temp_entries
from tests.integration.cli_helpers import sshbench
from tests.integration.other_servers import missing

pytestmark = pytest.mark.integration

VARIANT = "dropbear-w4194304"


def test_a_window_variant_is_a_server_of_its_own_started_with_its_window(tmp_path: Path) -> None:
    reason = missing("dropbear")
    if reason:
        pytest.skip(f"dropbear: {reason}")
    out, tmpdir = tmp_path / "r.json", tmp_path / "tmp"
    tmpdir.mkdir()
    done = sshbench("--server", "dropbear,dropbear:window=4MiB", "--ciphers", "aes128-ctr", "--macs", "none", "--kex",
                    "none", "--hostkeys", "none", "--directions", "upload", "--echo", "0", "--no-controls", "--runs",
                    "4", "--size", "64MiB", "--output", str(out), tmpdir=tmpdir, timeout=300)
    assert done.returncode == ExitCode.OK, done.stderr[-1500:]
    assert not leftovers(str(tmpdir)) and temp_entries(tmpdir) == set(), "processes or temp files left behind"
    data = json.loads(out.read_text())
    sides = data["environment"]["builds"]
    assert [b["name"] for b in sides] == ["dropbear", VARIANT]
    plain, wide = (b["own"]["server"]["embedded"] for b in sides)
    assert (plain["server"], plain["implementation"], plain["receive_window"]) == ("dropbear", "dropbear", None)
    assert (wide["server"], wide["implementation"], wide["receive_window"]) == (VARIANT, "dropbear", 4194304)
    # the argv of the dropbear that served each server's first connection, from /proc/PID/cmdline
    assert plain["command"][0].endswith("/dropbear") and "-i" in plain["command"] and "-W" not in plain["command"]
    assert wide["command"][0].endswith("/dropbear") and "-W" in wide["command"]
    assert wide["command"][wide["command"].index("-W") + 1] == "4194304"
    case = "cipher:aes128-ctr:upload"
    assert {c["case"]["build"] for c in data["cases"] if c["status"] == "measured" and c["case"]["kind"] == "cipher"} \
        == {"dropbear", VARIANT}
    counted = [s for s in data["samples"] if not s["warmup"] and s["case_id"].startswith(f"{case}#")]
    assert {s["case_id"] for s in counted} == {f"{case}#dropbear", f"{case}#{VARIANT}"}
    assert all(s["ok"] and s["negotiated"]["server_version"].startswith("dropbear_") for s in counted)
    said = " ".join(done.stdout.split())
    limit = next(line for line in said.split("limit: ")[1:] if line.startswith("[server dropbear] upload:"))
    assert "dropbear -W 4194304 moved " in limit and "x [" in limit and " as much here" in limit
    assert f"limit: [server {VARIANT}] upload:" in said and "Which server, and by how much" in said
    print("limit:", limit)  # the terminal's limit line, for the record (pytest -s)
