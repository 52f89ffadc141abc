"""What a recommendation says of connection reuse (--commands --reuse): ControlMaster lines where reusing the
connection was measured significantly faster for every short command measured, left out where the machine the
config is written on cannot make their socket.

The lines (vocabulary/commands.CONTROL_LINES, the same the short-command answer quotes): `ControlMaster auto`,
`ControlPath ~/.ssh/cm-%C` and `ControlPersist 60s`. A ControlPath ssh cannot bind fails every login (exit 255,
"unix_listener: cannot bind to path", measured with OpenSSH 9.2), so the socket goes in ~/.ssh, the directory the
config itself lives in (a directory of its own would fail every login until someone made it). %C is a
40-character hash and ssh adds a 17-character temporary suffix while it binds, and a Unix socket's path holds at
most 107 bytes: where a user's home is too long for that, ssh refuses the login ("too long for Unix domain
socket"). Whether that user's ~/.ssh is writable and short enough is a fact of the machine the config is written
on, not of the results: it is found there (orchestrate/validate.control_dir, where `recommend --write` and a run
write theirs) and given here as a ControlDir; nothing here reads the machine, so a results file gives the same
answer everywhere. The comment says what the socket is (a login for whoever can reach it: ~/.ssh must stay 0700)
and what ControlPersist leaves running.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sshbench.analysis.connections.commands import command_figures
from sshbench.results.model import Report
from sshbench.vocabulary.case_terms import Relation
from sshbench.vocabulary.commands import CONTROL_LINES, CONTROL_PATH


@dataclass(frozen=True)
class ControlDir:
    """Where the config is written: whether that user's ~/.ssh is a directory they can write (ssh makes the socket
    there), and whether CONTROL_PATH with that home fits a Unix socket's path."""

    writable: bool = True
    fits: bool = True


# Each reason a machine can give for leaving the lines out, as far as the advice's text goes
# (configtext.stored_if_consistent)
UNUSABLE_DIRS = (ControlDir(writable=False), ControlDir(fits=False))


@dataclass(frozen=True)
class ReuseAdvice:
    lines: tuple[str, ...] = ()  # the Host block's lines (none: not proven, or unsafe here)
    notes: tuple[str, ...] = field(default_factory=tuple)


def reuse_advice(report: Report, control: ControlDir | None = None) -> ReuseAdvice:
    """The lines where the results prove reuse faster for every short command; `control`: the machine the config
    is written on (None: no machine's, the results' own answer)."""
    reused = [f for f in command_figures(report) if f.reused and f.case.compressor.is_off]
    if not reused:
        return ReuseAdvice()
    faster = [(f, v.ratio) for f in reused if (v := f.versus_fresh) is not None
              and v.relation is Relation.DIFFERENT and v.faster == f.case.id]
    said = "; ".join(f"{f.case.command}{' over ' + f.case.link if f.case.link else ''} {ratio:.1f}x"
                     for f, ratio in faster)
    if len(faster) != len(reused):
        return ReuseAdvice(notes=(f"ControlMaster: not written, reuse was not faster for every short command "
                                  f"measured ({said or 'none'})",))
    if control is not None and not control.writable:
        return ReuseAdvice(notes=(f"ControlMaster: not written, reuse measured faster ({said}), but ~/.ssh is not "
                                  "a directory this user can write, and ssh fails every login whose socket it "
                                  "cannot make; make it (mkdir -m 700 ~/.ssh) and write the config again",))
    if control is not None and not control.fits:
        return ReuseAdvice(notes=(f"ControlMaster: not written, reuse measured faster ({said}), but "
                                  f"{CONTROL_PATH} is too long for a Unix socket with this user's home and ssh would "
                                  "refuse every login; set ControlPath to a short private path yourself",))
    return ReuseAdvice(CONTROL_LINES, (f"ControlMaster: reusing the connection measured faster for short commands "
                                       f"({said}); its socket in ~/.ssh is a login for whoever can reach it (keep "
                                       "~/.ssh 0700), and ControlPersist keeps the connection 60 s after the last "
                                       "command; Ansible sets these itself (ssh_args)",))
