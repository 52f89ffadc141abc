"""PuTTY's plink as a client: what its part declares against the installed plink and its recorded offer, what its
-v lines say (recorded real runs, tests/data/plink-v-0.78-*.txt), the driver's command line, host keys and
environment, and what a run holds it at against real servers' recorded offers (it has no option to choose any
algorithm)."""

from __future__ import annotations

import argparse
import binascii
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sshbench.clientparts import CLIENTS, DriverRequest
from sshbench.clientparts.base import DRIVERS, MARKS
from sshbench.clientparts.drivers import contract, plink_log, plink_pipe
from sshbench.clientparts.plink import PLINK
from sshbench.clients import known_clients
from sshbench.options import RunOptions
from sshbench.orchestrate.client_sides import _lacks, client_options, held
from sshbench.plumbing.kexinit import parse_kexinit_payload
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.targets.clientprobe import ClientProbe
from sshbench.targets.servers.inetd import PROCESS
from sshbench.vocabulary.algorithms import ALGORITHM_KINDS, AlgorithmLists
from tests.conftest import recorded
from tests.unit.test_plan import CLIENT as SSH

INSTALLED = shutil.which("plink")
needs_plink = pytest.mark.skipif(INSTALLED is None, reason="no plink here (apt-get install putty-tools)")
AES256 = {"cipher_c2s": "aes256-ctr", "cipher_s2c": "aes256-ctr", "mac_c2s": "hmac-sha2-256",
          "mac_s2c": "hmac-sha2-256"}
NTRU = "sntrup761x25519-sha512@openssh.com"
NONE = {"compression_c2s": "none", "compression_s2c": "none"}


def _said(name: str) -> plink_log.Said:
    """A recorded run's stderr, read line by line, each line's number as its moment."""
    return plink_log.read_all((float(n), text) for n, text in enumerate(recorded(f"plink-v-0.78-{name}.txt")
                                                                        .splitlines()))


def _args(**pinned: object) -> argparse.Namespace:
    request = DriverRequest("127.0.0.1", 2222, "u", "/run/k", "/run/kh", "sshbench-embedded", "/run/e",
                            "echo SSHBENCH-READY; exec wc -c", "upload")
    args = plink_pipe.arguments(request.argv(PLINK)[len(PLINK.command()):])
    for key, value in pinned.items():
        setattr(args, key, value)
    return args


def test_its_part_is_a_program_whose_driver_says_what_plink_said() -> None:
    assert CLIENTS["plink"] is PLINK and not PLINK.is_program and PLINK.program == "plink"
    assert PLINK.says_negotiation and PLINK.version() is None  # its driver's --probe says it (plink -V)
    assert PLINK.command() == [sys.executable, "-S", str(Path(DRIVERS, "plink_pipe.py"))]
    assert PLINK.window.source == "PuTTY 0.78 ssh.h: #define OUR_V2_BIGWIN 0x7fffffff"
    assert (PLINK.window.value, PLINK.max_packet.value) == (2**31 - 1, 16384) == (plink_pipe.WINDOW,
                                                                                plink_pipe.MAX_PACKET)
    assert PLINK.max_packet.line == "#define OUR_V2_MAXPKT 0x4000UL"
    assert PLINK.unchosen == frozenset(ALGORITHM_KINDS) and not [k for k in PLINK.knobs if k.window]
    assert (PLINK.name, PROCESS) == (plink_pipe.PROGRAM, contract.PROCESS)  # the listener's spelling


@needs_plink
def test_the_cited_release_is_the_installed_plink_s() -> None:
    assert INSTALLED is not None
    said = subprocess.run([INSTALLED, "-V"], capture_output=True, text=True, timeout=30, check=False).stdout
    assert said.startswith("plink: Release 0.78\n") and PLINK.window.release == "PuTTY 0.78"
    helped = subprocess.run([INSTALLED, "--help"], capture_output=True, text=True, timeout=30, check=False).stdout
    assert "-C        enable compression" in helped and "-hostkey keyid" in helped
    assert not [line for line in helped.splitlines() if "cipher" in line.lower()], "it still has no cipher option"


def test_its_lists_are_its_recorded_offer_less_what_batch_mode_refuses() -> None:
    """clients/offers/putty-0.78.json is plink's own KEXINIT; the driver's lists are it, in its order, without the
    pseudo-names and what settings.c puts below the warning line (-batch will not ask to confirm those)."""
    (offer,) = [o for o in known_clients() if o.name == "putty-0.78"]
    pseudo = ("ext-info-c", "kex-strict-c-v00@openssh.com")
    for ours, theirs in ((plink_log.KEX, offer.kex), (plink_log.KEYS, offer.hostkey),
                         (plink_log.CIPHERS, offer.cipher_c2s), (plink_log.MACS, offer.mac_c2s)):
        assert list(ours) == [n for n in theirs if n not in pseudo and n not in plink_log.BELOW_WARN]
    assert set(plink_log.BELOW_WARN) <= {*offer.kex, *offer.cipher_c2s}


@pytest.mark.parametrize(("name", "agreed"), [
    ("default", {"kex": NTRU, "hostkey": "ssh-ed25519", **AES256, **NONE}),
    ("chacha", {"kex": NTRU, "cipher_c2s": "chacha20-poly1305@openssh.com", "mac_c2s": "<implicit>", **NONE}),
    ("gcm128", {"cipher_s2c": "aes128-gcm@openssh.com", "mac_s2c": "<implicit>"}),
    ("aes128ctr-etm", {"cipher_c2s": "aes128-ctr", "mac_c2s": "hmac-sha2-256-etm@openssh.com",
                       "mac_s2c": "hmac-sha2-256-etm@openssh.com"}),
    ("cbc-sha1", {"cipher_c2s": "aes256-cbc", "mac_s2c": "hmac-sha1"}),  # not rijndael-cbc: plink's first of the two
    ("curve25519", {"kex": "curve25519-sha256"}),  # not its @libssh.org twin, for the same reason
    ("nistp384", {"kex": "ecdh-sha2-nistp384"}),
    ("gex256", {"kex": "diffie-hellman-group-exchange-sha256"}),
    ("group16", {"kex": "diffie-hellman-group16-sha512"}),
    ("rsa512", {"hostkey": "rsa-sha2-512", **AES256}),
    ("comp-delayed", {"compression_c2s": "zlib@openssh.com", "compression_s2c": "zlib@openssh.com", **AES256}),
])
def test_a_recorded_run_s_lines_name_what_the_server_was_limited_to(name: str, agreed: dict[str, str]) -> None:
    """Each recording is plink against the embedded sshd 9.2p1 offering only the names asserted (a drop-in's
    Ciphers, MACs, KexAlgorithms, HostKeyAlgorithms or Compression delayed, with plink -C)."""
    said = _said(name)
    assert {key: said.agreed[key] for key in agreed} == agreed
    assert said.agreed["server_version"] == "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10"
    assert None not in said.agreed.values() and not said.unread and said.fatal is None
    assert list(said.marks) == ["connected", "kex_done", "authenticated", "session_open"]
    assert set(said.marks) <= set(MARKS) and sorted(said.marks.values()) == list(said.marks.values())


def test_a_re_exchange_s_lines_change_nothing_of_the_first() -> None:
    """After 1 GB (or 60 minutes) plink exchanges keys again and logs its algorithms again: the first stand."""
    lines = recorded("plink-v-0.78-default.txt").splitlines()
    again = ["Initiating key re-exchange (too much data sent)",
             *[line for line in lines if line.startswith(("Doing ", "Initialised "))]]
    changed = [text.replace("AES-256 SDCTR", "ChaCha20").replace("NTRU Prime / Curve25519 hybrid", "ECDH")
               for text in again]
    said = plink_log.read_all((float(n), text) for n, text in enumerate([*lines, *changed]))
    assert said.agreed == _said("default").agreed and said.marks == _said("default").marks


@pytest.mark.parametrize(("name", "fatal"), [
    ("hostkey-not-pinned", "FATAL ERROR: Host key not in manually configured list"),
    ("kex-group1-below-warn", "FATAL ERROR: Cannot confirm a weak crypto primitive in batch mode (The first "
     "key-exchange algorithm supported by the server is diffie-hellman-group1-sha1, which is below the configured "
     "warning threshold.)"),
])
def test_what_ended_a_recorded_connection_is_its_one_line(name: str, fatal: str) -> None:
    """Only the server's RSA key pinned, where it offers ed25519 first (plink's first): plink ends the connection
    without a question; a server offering only diffie-hellman-group1-sha1: -batch will not confirm it."""
    said = _said(name)
    assert said.fatal == fatal and said.agreed["cipher_c2s"] is None and "authenticated" not in said.marks


def test_its_command_line_is_a_user_s_batch_command_with_every_host_key_pinned() -> None:
    argv = plink_pipe.plink_argv(_args(), "/usr/bin/plink", "/run/plink-home", ["SHA256:a", "SHA256:b"])
    assert argv == ["/usr/bin/plink", "-v", "-batch", "-ssh", "-noagent", "-noshare", "-T", "-P", "2222", "-l", "u",
                    "-i", "/run/plink-home/identity.ppk", "-hostkey", "SHA256:a", "-hostkey", "SHA256:b",
                    "127.0.0.1", "echo SSHBENCH-READY; exec wc -c"]
    assert "-C" in plink_pipe.plink_argv(_args(compression=True), "p", "h", ["SHA256:a"])
    assert not {"-load", "-A", "-X", "-L", "-R", "-D", "-t"} & set(argv), "no saved session, no forwarding: simple"


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="no ssh-keygen here")
def test_the_host_keys_pinned_are_known_hosts_own_by_their_sha256_fingerprints(tmp_path: Path) -> None:
    """The fingerprints ssh-keygen -l gives for the same keys: the form plink prints and -hostkey takes."""
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "k")], check=True, timeout=30)
    kind, blob = (tmp_path / "k.pub").read_text().split()[:2]
    known = tmp_path / "known_hosts"
    known.write_text(f"sshbench-embedded {kind} {blob}\nother {kind} AAAAC3NzaC1lZDI1NTE5\n", encoding="ascii")
    listed = subprocess.run(["ssh-keygen", "-lf", str(tmp_path / "k.pub")], capture_output=True, text=True,
                            timeout=30, check=True).stdout.split()[1]
    assert plink_pipe.fingerprints(_args(known_hosts=str(known))) == [listed]
    with pytest.raises(contract.Failed, match="holds no host key for nobody"):
        plink_pipe.fingerprints(_args(known_hosts=str(known), alias="nobody"))


def test_its_environment_keeps_the_user_s_putty_ssh_and_agent_out(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SSH_AUTH_SOCK", "XDG_CONFIG_HOME", "PUTTYDIR", "PUTTYSESSIONS", "PUTTYSSHHOSTKEYS"):
        monkeypatch.setenv(name, "/home/someone/theirs")
    env = plink_pipe.environment("/run/plink-home")
    assert env["HOME"] == "/run/plink-home" and env["PUTTYDIR"] == "/run/plink-home/putty"
    assert not {"SSH_AUTH_SOCK", "XDG_CONFIG_HOME", "PUTTYSESSIONS", "PUTTYSSHHOSTKEYS"} & set(env)
    assert env["PATH"]


def test_a_name_it_lacks_is_refused_before_and_one_it_did_not_take_after(monkeypatch: pytest.MonkeyPatch) -> None:
    offered = {"version": "0.78", "ciphers": list(plink_log.CIPHERS), "macs": list(plink_log.MACS),
               "kex": list(plink_log.KEX), "keys": list(plink_log.KEYS)}
    with pytest.raises(contract.Failed, match=r"^plink 0.78 cannot use cipher blowfish-cbc \(it has: aes256-ctr, "):
        plink_pipe.checked(_args(cipher="blowfish-cbc"), offered)
    plink_pipe.checked(_args(cipher="aes128-ctr", kex="curve25519-sha256"), offered)  # it has them: it may agree
    said = _said("default")
    plink_pipe.account(_args(cipher="aes256-ctr", mac="hmac-sha2-256", kex=NTRU), said, "0.78")
    with pytest.raises(contract.Failed) as refused:
        plink_pipe.account(_args(cipher="aes128-ctr"), said, "0.78")
    assert str(refused.value) == ("asked for aes128-ctr but plink 0.78 agreed aes256-ctr (cipher_c2s): plink has no "
                                  "option to choose it, and takes its first that the server offers")
    with pytest.raises(contract.Failed, match=r"^asked for compression but plink 0.78 agreed none"):
        plink_pipe.account(_args(compression=True), said, "0.78")
    plink_pipe.account(_args(compression=True), _said("comp-delayed"), "0.78")
    chacha = _said("chacha")  # under an AEAD cipher the pinned MAC is not asked for
    plink_pipe.account(_args(cipher="chacha20-poly1305@openssh.com", mac="hmac-sha2-256"), chacha, "0.78")


def _offer(name: str) -> AlgorithmLists:
    lines = recorded(name).splitlines()
    return parse_kexinit_payload(binascii.unhexlify(lines[-1]), lines[0].removeprefix("# ")).lists


PROBE = ClientProbe(PLINK, "0.78", AlgorithmLists(plink_log.CIPHERS, plink_log.MACS, plink_log.KEX, plink_log.KEYS),
                    plink_pipe.WINDOW, plink_pipe.MAX_PACKET)


@pytest.mark.parametrize(("server", "cipher", "kex"), [
    ("kexinit-openssh-9.2-all-enabled.txt", "aes256-ctr", NTRU),
    ("kexinit-dropbear-2022.83.txt", "aes256-ctr", "curve25519-sha256"),  # Dropbear has no NTRU Prime
    ("kexinit-tinysshd-20230101.txt", "chacha20-poly1305@openssh.com", NTRU),  # tinysshd's one cipher
])
def test_it_is_held_at_its_first_that_each_recorded_server_offers(server: str, cipher: str, kex: str) -> None:
    holds = held(PROBE, _offer(server))
    assert (holds.cipher, holds.mac, holds.kex, holds.hostkey) == ((cipher,), ("hmac-sha2-256",), (kex,),
                                                                   ("ssh-ed25519",))
    assert held(PROBE, AlgorithmLists()) == AlgorithmLists(), "a server that offers none of its names: nothing"


def test_a_run_holds_every_client_at_plink_s_key_exchange_and_skips_its_other_ciphers_saying_why() -> None:
    offered = _offer("kexinit-openssh-9.2-all-enabled.txt")
    options = client_options(RunOptions(ciphers="aes256-ctr,aes128-ctr"), SSH, offered, [PROBE])
    assert (options.partner_kex, options.cipher_mac) == (NTRU, "hmac-sha2-256")
    case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes256-ctr", mac="hmac-sha2-256", kex=NTRU)
    assert _lacks(PROBE, case.at("client", "plink"), offered) is None
    other = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr", mac="hmac-sha2-256", kex=NTRU)
    assert _lacks(PROBE, other, offered) == ("PuTTY's plink 0.78 cannot use cipher aes128-ctr here: plink has no "
                                             "option to choose one: it takes its first that the server offers, "
                                             "aes256-ctr")
    dbclients = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes256-ctr", mac="hmac-sha2-256",
                     kex="curve25519-sha256")
    assert str(_lacks(PROBE, dbclients, offered)).endswith("cannot use key exchange curve25519-sha256 here: plink "
                                                          "has no option to choose one: it takes its first that the "
                                                          f"server offers, {NTRU}")
    assert _lacks(PROBE, Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="arcfour"), offered) == (
        "PuTTY's plink 0.78 cannot use cipher arcfour (it has: " + ", ".join(plink_log.CIPHERS) + ")")
