"""OpenSSH's `ssh`: the client every run has measured, and the default. It has no driver: the run's own ssh is
started as it always was (measure/pipe.py), its version comes from `ssh -V` (targets/discovery.py) and its
negotiation from its own `ssh -v` (measure/proof.py), so a run without --client is what it was before."""

from __future__ import annotations

from sshbench.clientparts.base import Can, Cited, ClientPart, Knob

# Read in the OpenSSH 10.2p1 tarball (../shared/sources); the same lines stand in 9.2p1, whose ssh advertised
# "win 2097152 max 32768" to the embedded sshd (its debug log, server_input_channel_open). ssh.c halves both for
# a session with a tty (ssh_session2_open: window >>= 1); an exec without one, the pipe's, keeps them whole.
_RELEASE = "OpenSSH 10.2p1"

OPENSSH_CLIENT = ClientPart(
    name="openssh",
    title="OpenSSH's ssh",
    implementation="openssh",
    distribution=None,
    install="apt-get install openssh-client",
    can=frozenset({Can.PIPE_UPLOAD, Can.PIPE_DOWNLOAD, Can.SFTP}),
    window=Cited(64 * 32 * 1024, "channels.h", _RELEASE,
                 "#define CHAN_SES_WINDOW_DEFAULT (64*CHAN_SES_PACKET_DEFAULT)"),
    max_packet=Cited(32 * 1024, "channels.h", _RELEASE, "#define CHAN_SES_PACKET_DEFAULT (32*1024)"),
    knobs=(Knob("window", "2097152 (CHAN_SES_WINDOW_DEFAULT)", "compiled in: no option of ssh sets it"),),
)
