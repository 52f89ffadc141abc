"""A phase far beyond its round trips, named with its likely causes: "ssh login takes 10 seconds", diagnosed.

Each phase of a connection costs a known number of network round trips
(the protocol; docs/commands.md has them as measured over rtt=80ms) plus
CPU. A phase that took STALL_SECONDS or more beyond its round trips waited
on something else, and where it sits says which side and, often, what:
within authentication, ssh -v's own lines split it further (the server's
answer to the first request, the key offered and accepted, the login
confirmed). The causes named are the classic ones for that place; nothing
is said where the phases do not point (a stall only shows once it exceeds
the slack, so a busy machine's CPU noise is not named).
"""

from __future__ import annotations

from dataclasses import dataclass

from sshbench.analysis.connections.phases import PhaseName, PhaseSplit, spelled

STALL_SECONDS = 0.5  # beyond its round trips: more than a busy machine's CPU adds to a login (sntrup761: 0.35 s)
# Round trips per phase (OpenSSH client, key authentication): TCP connect; the server's banner; KEXINIT/ECDH
# reply; service request, the "none" probe, the key query and the signed key; channel open; exec with its reply;
# the close
TRIPS = {PhaseName.START: 1, PhaseName.VERSION: 1, PhaseName.KEX: 1, PhaseName.AUTH: 4, PhaseName.SESSION: 1,
         PhaseName.COMMAND: 2, PhaseName.EXIT: 1}

CAUSES = {
    PhaseName.START: "on the client, before the server answered: ssh's own start-up (a slow ProxyCommand or Match "
                     "exec in its config), the host name's DNS lookup, or a TCP connect that waited (SYNs lost or "
                     "dropped)",
    PhaseName.VERSION: "on the server, before its banner: sshd busy (MaxStartups queueing), a TCP wrapper's lookups, "
                       "or a slow server machine",
    PhaseName.KEX: "the key exchange: CPU (a post-quantum hybrid such as sntrup761 or mlkem768 on a slow or busy "
                   "CPU; see the key exchange table) or a lost packet",
    PhaseName.SESSION: "on the server, opening the session: PAM session modules (pam_systemd, pam_mkhomedir), motd, "
                       "lastlog",
    PhaseName.COMMAND: "on the server, starting the command: the login shell's start-up files (.bashrc, .profile)",
    PhaseName.EXIT: "the command itself, or a process keeping the session open (a background job holding its "
                    "output)",
}
# Within authentication, by the ssh -v marks around the wait (analysis/connections/phases.py keeps them)
AUTH_STEPS = (
    ("service_accepted", "methods_listed",
     "on the server, before it answered the first authentication request: reverse DNS of the client's address "
     "(UseDNS yes, or AllowUsers/Match patterns with host names) with a resolver that does not answer"),
    ("methods_listed", "key_accepted",
     "between the methods: on the client, a method tried first that waits (GSSAPI against no KDC: "
     "GSSAPIAuthentication yes), or keys offered one by one; on the server, reading authorized_keys "
     "(a home on a slow network file system)"),
    ("key_accepted", "authenticated",
     "after the key was accepted: on the client, signing (an agent, a hardware key waiting for a touch); on the "
     "server, PAM account modules (LDAP, SSSD)"),
)
AUTH_ANY = ("authentication, on the server (reverse DNS of the client with UseDNS yes, PAM) or on the client "
            "(GSSAPI tried first against no KDC, keys offered one by one)")


@dataclass(frozen=True)
class Stall:
    case_id: str
    names: tuple[PhaseName, ...]  # the phase's (Phase.names): one, or several where a mark was missing
    seconds: float
    trips: float | None  # the phase in round trips of its path (None: no round trip measured)
    expected: int  # the round trips the protocol gives it
    causes: str

    @property
    def phase(self) -> str:
        """The phase as the outputs write it: "auth", "start+version"."""
        return spelled(self.names)


def stalls(found: PhaseSplit) -> list[Stall]:
    """The phases of one median connection that waited STALL_SECONDS or more beyond their round trips."""
    rtt = found.rtt or 0.0
    out = []
    for phase in found.phases:
        expected = sum(TRIPS[name] for name in phase.names)
        if phase.seconds < expected * rtt + STALL_SECONDS:
            continue
        trips = phase.seconds / found.rtt if found.rtt and found.rtt >= 0.001 else None
        causes = _auth(found.marks, rtt) if phase.last is PhaseName.AUTH else CAUSES.get(phase.last, "")
        out.append(Stall(found.case_id, phase.names, phase.seconds, trips, expected, causes))
    return out


def _auth(marks: dict[str, float], rtt: float) -> str:
    """Where within authentication the wait sat, by the ssh -v marks around it; the phase's causes where they
    are missing or no step holds the wait."""
    waits = [(marks[b] - marks[a], words) for a, b, words in AUTH_STEPS if a in marks and b in marks]
    longest = max(waits, default=None, key=lambda w: w[0])
    if longest is None or longest[0] < rtt + STALL_SECONDS:
        return AUTH_ANY
    return longest[1]
