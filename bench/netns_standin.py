"""A stand-in remote host: a stock-configured sshd in its own network namespace, behind a veth link
with optional netem delay/rate, reached through a generated ssh config alias. Then `sshbench run` on it.

Needs root (network namespaces). Everything it creates (namespace, veth, keys, configs, sshd) is
removed at the end, also on Ctrl-C. Usage:

    python bench/netns_standin.py [--delay 5ms] [--rate 1gbit] -- [sshbench run options]

Example: python bench/netns_standin.py --delay 2ms -- --ciphers default --macs none --kex none \
             --hostkeys none --time-budget 2m
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

from sshbench.targets.servers.privsep import PrivsepDir

NS, HOST_IF, NS_IF = "sshbench-standin", "sbveth0", "sbveth1"
HOST_IP, NS_IP = "10.213.77.1", "10.213.77.2"


def sh(*argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=check)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", help="netem delay each way, e.g. 2ms")
    parser.add_argument("--rate", help="netem rate limit, e.g. 1gbit")
    parser.add_argument("rest", nargs="*")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("netns_standin.py needs root (it creates a network namespace)", file=sys.stderr)
        return 3
    work = tempfile.mkdtemp(prefix="sshbench-standin-")
    os.chmod(work, 0o700)
    sshd_proc = None
    privsep = PrivsepDir()  # sshbench's way to /run/sshd without touching the system's (servers/privsep.py)
    try:
        sh("ip", "netns", "add", NS)
        sh("ip", "link", "add", HOST_IF, "type", "veth", "peer", "name", NS_IF)
        sh("ip", "link", "set", NS_IF, "netns", NS)
        sh("ip", "addr", "add", f"{HOST_IP}/30", "dev", HOST_IF)
        sh("ip", "link", "set", HOST_IF, "up")
        sh("ip", "netns", "exec", NS, "ip", "addr", "add", f"{NS_IP}/30", "dev", NS_IF)
        sh("ip", "netns", "exec", NS, "ip", "link", "set", NS_IF, "up")
        sh("ip", "netns", "exec", NS, "ip", "link", "set", "lo", "up")
        netem = [*(["delay", args.delay] if args.delay else []), *(["rate", args.rate] if args.rate else [])]
        if netem:
            for ns_prefix, dev in (([], HOST_IF), (["ip", "netns", "exec", NS], NS_IF)):
                done = sh(*ns_prefix, "tc", "qdisc", "add", "dev", dev, "root", "netem", *netem, check=False)
                if done.returncode != 0:
                    print(f"netem not available ({done.stderr.strip()}); running without it", file=sys.stderr)
                    break
        for name in ("host", "client"):
            sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", f"{work}/{name}")
        shutil.copy(f"{work}/client.pub", f"{work}/authorized_keys")
        privsep.acquire()
        with open(f"{work}/sshd_config", "w", encoding="utf-8") as fh:  # stock algorithms: nothing enabled
            fh.write(f"ListenAddress {NS_IP}\nPort 22\nHostKey {work}/host\nPidFile none\nUsePAM no\n"
                     f"AuthorizedKeysFile {work}/authorized_keys\nPasswordAuthentication no\n"
                     "KbdInteractiveAuthentication no\nStrictModes no\nPermitRootLogin prohibit-password\n")
        sshd_proc = subprocess.Popen(["ip", "netns", "exec", NS, *privsep.wrap(["/usr/sbin/sshd", "-D", "-e", "-f",
                                      f"{work}/sshd_config"])], stderr=subprocess.DEVNULL)
        with open(f"{work}/host.pub", encoding="utf-8") as pub, \
                open(f"{work}/known_hosts", "w", encoding="utf-8") as known:
            known.write(f"{NS_IP} {' '.join(pub.read().split()[:2])}\n")
        with open(f"{work}/ssh_config", "w", encoding="utf-8") as fh:
            fh.write(f"Host standin\n  HostName {NS_IP}\n  User {os.environ.get('USER', 'root')}\n"
                     f"  IdentityFile {work}/client\n  IdentitiesOnly yes\n  IdentityAgent none\n"
                     f"  UserKnownHostsFile {work}/known_hosts\n  GlobalKnownHostsFile /dev/null\n")
        time.sleep(0.5)
        run = [sys.executable, "-m", "sshbench", "run", "standin", "--ssh-config", f"{work}/ssh_config", *args.rest]
        print("+", " ".join(run), file=sys.stderr, flush=True)
        return subprocess.run(run, check=False).returncode
    finally:
        if sshd_proc is not None:
            sshd_proc.terminate()
            sshd_proc.wait(timeout=10)
        sh("ip", "link", "del", HOST_IF, check=False)
        sh("ip", "netns", "del", NS, check=False)
        privsep.release()  # ends what acquire made (a namespace, or the fallback's shared hold), nothing else
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
