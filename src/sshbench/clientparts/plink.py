"""PuTTY's plink: the command-line SSH client of PuTTY (Windows batch files, WinSCP's and FileZilla's SSH code).

A program, not a library, measured as users script it (`plink -batch -ssh -P PORT -l USER -i KEY.ppk -hostkey
FINGERPRINT HOST COMMAND`, the data on its stdin and stdout) through a driver that prepares the connection, runs
plink with -v as its child and reads what plink says it negotiated (drivers/plink_pipe.py says why a child: wait4
gives plink's CPU all the same). plink has no option to choose an algorithm of any kind (a saved session orders
cipher families, never one name), so it is held at its first that the server offers (`unchosen`), and a case
that asks for another is skipped saying so.

Its window and packet size are read in the source of the release Debian 12 ships (putty-tools 0.78-2+deb12u2,
PuTTY's commit 4ff82ab2 "Update version number for 0.78 release", which `plink -V` names): unix/plink.c sets
CONF_ssh_simple when there is no forwarding (none is asked for here), and ssh/connection2.c ssh2_channel_init
then gives the channel OUR_V2_BIGWIN; the embedded sshd logged what plink advertised, `server_input_channel_open:
ctype session rchan 256 win 2147483647 max 16384`.
"""

from __future__ import annotations

from sshbench.clientparts.base import Can, Cited, ClientPart, Knob
from sshbench.vocabulary.algorithms import ALGORITHM_KINDS

_RELEASE = "PuTTY 0.78"

PLINK = ClientPart(
    name="plink",
    title="PuTTY's plink",
    implementation="putty",
    distribution=None,
    install="apt-get install putty-tools",
    can=frozenset({Can.PIPE_UPLOAD, Can.PIPE_DOWNLOAD, Can.SSH_COMPRESSION}),  # psftp, pscp: later drivers
    # ssh/connection2.c ssh2_channel_init: c->locwindow = ... = s->ssh_is_simple ? OUR_V2_BIGWIN : OUR_V2_WINSIZE;
    # ssh2_chanopen_init puts c->locwindow and OUR_V2_MAXPKT in the CHANNEL_OPEN
    window=Cited(0x7FFFFFFF, "ssh.h", _RELEASE, "#define OUR_V2_BIGWIN 0x7fffffff"),
    max_packet=Cited(0x4000, "ssh.h", _RELEASE, "#define OUR_V2_MAXPKT 0x4000UL"),
    knobs=(Knob("window", "2147483647 (OUR_V2_BIGWIN: a connection with no forwarding)",
                "compiled in: no option sets it; a forwarding (-L, -R, -D, -A, -X) leaves the simple mode, and each "
                "channel gets OUR_V2_WINSIZE, 16384"),
           Knob("Cipher", "aes,chacha20,aesgcm,3des,WARN,des,blowfish,arcfour (settings.c)",
                "a saved session's cipher families, in order (-load NAME): no option of plink's names one cipher")),
    driver="plink_pipe.py",
    program="plink",
    interpreter_flags=("-S",),  # the driver imports the standard library only: its start stays ~20 ms of set-up
    unchosen=frozenset(ALGORITHM_KINDS),
    unchosen_why="plink has no option to choose one: it takes its first that the server offers",
)
