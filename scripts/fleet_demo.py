"""A small fleet on this machine, measured with the real playbook: the documented way to see fleet/ work.

    sudo .venv/bin/python scripts/fleet_demo.py [--hosts 3] [--out fleet-demo] [-- sshbench run options]

Each "host" is a network namespace of this script's own with its own sshd,
host key and address, reached from a controller namespace over a veth pair;
one more inventory entry points at an address nobody answers, to show an
unreachable host reported while the others go on. Ansible (ansible-core,
from the project's venv) runs fleet/sshbench.yml inside the controller
namespace, exactly as against real machines: it copies the wheels, makes a
venv on each host, runs sshbench there (its embedded server, on that host's
own loopback), fetches the results and merges them with `sshbench report`.

The wheels are built first, here in the machine's own namespace (pip may
need the package index; the controller namespace has no route out), and
handed to the playbook with sshbench_build=false.

Nothing is left behind: namespaces, sshd processes, keys and Ansible's
files are removed at the end (also on Ctrl-C); the results and the report
stay in --out. Needs root. Exit status: 0 when every reachable host sent
results and the report was made, 1 otherwise, 3 when something is missing.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHORT_RUN = ["--ciphers", "aes128-gcm@openssh.com,chacha20-poly1305@openssh.com,aes128-ctr", "--macs", "none",
             "--kex", "none", "--hostkeys", "none", "--directions", "upload", "--runs", "3", "--size", "32MiB"]
PLAYBOOK_SECONDS = 1500


def sh(*argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=check, timeout=60)


def build_wheels(wheelhouse: str) -> None:
    """The playbook's own build step, run where the package index is reachable."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--wheel-dir",
                    wheelhouse, "-c", os.path.join(REPO, "constraints.txt"), REPO], check=True, timeout=600)


def start_host(work: str, ctl: str, name: str, index: int, client_pub: str,
               wrap: Callable[[list[str]], list[str]] = list) -> tuple[subprocess.Popen[bytes], str]:
    """Namespace `name` at 198.19.<index>.2 with its own sshd (run through `wrap`: where it finds /run/sshd); its
    known_hosts line."""
    sh("ip", "netns", "add", name)
    sh("ip", "-n", name, "link", "set", "lo", "up")
    sh("ip", "-n", ctl, "link", "add", f"f{index}", "type", "veth", "peer", "name", "eth0", "netns", name)
    for ns, dev, address in ((ctl, f"f{index}", f"198.19.{index}.1/24"), (name, "eth0", f"198.19.{index}.2/24")):
        sh("ip", "-n", ns, "addr", "add", address, "dev", dev)
        sh("ip", "-n", ns, "link", "set", dev, "up")
    key = os.path.join(work, f"{name}-hostkey")
    sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key)
    config = os.path.join(work, f"{name}-sshd_config")
    with open(config, "w", encoding="utf-8") as fh:
        fh.write(f"ListenAddress 198.19.{index}.2\nPort 22\nHostKey {key}\nPidFile none\nUsePAM no\n"
                 f"AuthorizedKeysFile {client_pub}\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                 "PermitRootLogin prohibit-password\nStrictModes no\nSubsystem sftp internal-sftp\n"
                 "LogLevel ERROR\n")
    sshd = subprocess.Popen(["ip", "netns", "exec", name, *wrap(["/usr/sbin/sshd", "-D", "-e", "-f", config])],
                            stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    with open(f"{key}.pub", encoding="utf-8") as pub:
        return sshd, f"198.19.{index}.2 {' '.join(pub.read().split()[:2])}\n"


def inventory(work: str, hosts: int) -> str:
    path = os.path.join(work, "inventory.ini")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("[fleet]\n")
        for index in range(1, hosts + 1):
            fh.write(f"host{index} ansible_host=198.19.{index}.2\n")
        fh.write("unreachable1 ansible_host=198.19.250.2\n\n[fleet:vars]\nansible_user=root\n"
                 f"ansible_ssh_private_key_file={work}/client\n"
                 f"ansible_ssh_common_args=-F /dev/null -o UserKnownHostsFile={work}/known_hosts "
                 "-o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes "
                 "-o IdentityAgent=none -o ConnectTimeout=5\n"
                 "ansible_python_interpreter=/usr/bin/python3\n"
                 f"ansible_remote_tmp={work}/remote-tmp\n")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hosts", type=int, default=3)
    parser.add_argument("--out", default="fleet-demo")
    parser.add_argument("run_args", nargs="*", help="options for sshbench run on each host (default: a short study)")
    args = parser.parse_args()
    playbook_bin = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    if os.geteuid() != 0:
        print("fleet_demo.py needs root (it makes network namespaces and starts sshd in them)", file=sys.stderr)
        return 3
    if not os.access(playbook_bin, os.X_OK):
        print(f"no {playbook_bin}: install the project with `make deps` (ansible-core is in its dev extras)",
              file=sys.stderr)
        return 3
    if not 1 <= args.hosts <= 20:
        print("--hosts: 1 to 20", file=sys.stderr)
        return 2
    out = os.path.abspath(args.out)
    if os.path.exists(out):
        print(f"{out} exists: give a new --out directory", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM cleans up like Ctrl-C
    work = tempfile.mkdtemp(prefix="sshbench-fleet-demo-")
    os.chmod(work, 0o700)
    ctl = f"sbfleet-{os.getpid()}-ctl"
    names = [f"sbfleet-{os.getpid()}-h{i}" for i in range(1, args.hosts + 1)]
    sshds: list[subprocess.Popen[bytes]] = []
    made: list[str] = []
    control = ""
    from sshbench.targets.servers.privsep import PrivsepDir
    privsep = PrivsepDir()
    try:
        privsep.acquire()
        print(f"building the wheels ({REPO})", flush=True)
        build_wheels(os.path.join(work, "wheels"))
        sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(work, "client"))
        sh("ip", "netns", "add", ctl)
        made.append(ctl)
        sh("ip", "-n", ctl, "link", "set", "lo", "up")
        known = []
        for index, name in enumerate(names, start=1):
            made.append(name)
            sshd, line = start_host(work, ctl, name, index, os.path.join(work, "client.pub"), privsep.wrap)
            sshds.append(sshd)
            known.append(line)
        with open(os.path.join(work, "known_hosts"), "w", encoding="utf-8") as fh:
            fh.writelines(known)
        for sub in ("ansible", "tmp", "remote-tmp"):
            os.makedirs(os.path.join(work, sub), mode=0o700)
        # ssh's ControlPath must fit a Unix socket's 108 bytes: a short directory of its own under /tmp. No
        # ControlPersist (ANSIBLE_SSH_ARGS without it): a master left for 60 s would outlive the demo.
        control = tempfile.mkdtemp(prefix="sbf-", dir="/tmp")
        config = os.path.join(work, "ansible.cfg")
        open(config, "w", encoding="utf-8").close()  # no ansible.cfg of the user's or the cwd's
        env = {**os.environ, "ANSIBLE_CONFIG": config, "ANSIBLE_HOME": f"{work}/ansible",
               "ANSIBLE_LOCAL_TEMP": f"{work}/ansible/tmp", "ANSIBLE_SSH_CONTROL_PATH_DIR": control,
               "ANSIBLE_SSH_ARGS": "-o ControlMaster=no",
               "ANSIBLE_NOCOLOR": "1", "ANSIBLE_RETRY_FILES_ENABLED": "0", "ANSIBLE_FORKS": str(args.hosts + 1),
               "ANSIBLE_PIPELINING": "True",  # one connection per task, not three: no ControlMaster to share
               "ANSIBLE_HOST_KEY_CHECKING": "True", "TMPDIR": f"{work}/tmp"}
        run_args = " ".join(args.run_args or SHORT_RUN)
        time.sleep(0.3)  # sshd binding its address
        command = ["ip", "netns", "exec", ctl, playbook_bin, "-i", inventory(work, args.hosts),
                   os.path.join(REPO, "fleet", "sshbench.yml"), "-e", f"sshbench_results_dir={out}",
                   "-e", "sshbench_build=false", "-e", f"sshbench_wheelhouse={work}/wheels",
                   "-e", f"sshbench_args='{run_args}'", "-e", "sshbench_timeout=900"]
        print("+", " ".join(command), flush=True)
        played = subprocess.run(command, env=env, timeout=PLAYBOOK_SECONDS, check=False, stdin=subprocess.DEVNULL)
        got = sorted(n for n in os.listdir(out) if n.endswith(".json")) if os.path.isdir(out) else []
        print(f"ansible-playbook exit {played.returncode} (4: a host was unreachable, as planned); results from "
              f"{len(got)} of {args.hosts} reachable hosts in {out}", flush=True)
        return 0 if len(got) == args.hosts and os.path.exists(os.path.join(out, "fleet.html")) else 1
    except KeyboardInterrupt:
        print("fleet_demo.py: interrupted; cleaning up", file=sys.stderr)
        return 130
    finally:
        for sshd in sshds:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(sshd.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                sshd.wait(timeout=5)
        for name in reversed(made):  # anything still running inside (a session's sshd, a shell) goes too
            pids = sh("ip", "netns", "pids", name, check=False).stdout.split()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
            sh("ip", "netns", "delete", name, check=False)
        privsep.release()
        shutil.rmtree(work, ignore_errors=True)
        if control:
            shutil.rmtree(control, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
