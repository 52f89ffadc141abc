"""Dropbear's dbclient: the SSH client of small systems (OpenWrt, busybox images, initramfs unlockers).

A program, not a library, measured as users run it (`dbclient -c CIPHER -m MAC -i KEY -p PORT user@host COMMAND`,
the data on its stdin and stdout) through a driver that prepares the connection and then becomes dbclient
(drivers/dbclient_pipe.py says why exec): wait4 gives dbclient's CPU as it gives ssh's. dbclient says nothing of
what it negotiated, so only a server that logs it (the embedded OpenSSH sshd) can prove a sample.

Its window and packet size are read in the source of the release Debian 12 ships (dropbear-bin 2022.83-1+deb12u3,
mkj/dropbear tag DROPBEAR_2022.83); the embedded sshd logged what dbclient advertised, `server_input_channel_open:
ctype session rchan 0 win 24576 max 32759`, and tests/unit/test_clientparts.py holds the window to what the
installed `dbclient -h` says of -W's default.
"""

from __future__ import annotations

from sshbench.clientparts.base import Can, Cited, ClientPart, Knob

_RELEASE = "Dropbear 2022.83"
_MAX_WINDOW = 10 * 1024 * 1024  # sysoptions.h: #define MAX_RECV_WINDOW (10*1024*1024)

DBCLIENT = ClientPart(
    name="dbclient",
    title="Dropbear's dbclient",
    implementation="dropbear",
    distribution=None,
    install="apt-get install dropbear-bin",
    can=frozenset({Can.PIPE_UPLOAD, Can.PIPE_DOWNLOAD}),  # its SFTP is an external sftp-server (-s): not driven
    # cli-runopts.c: opts.recv_window = DEFAULT_RECV_WINDOW; common-channel.c send_msg_channel_open_init:
    # buf_putint(ses.writepayload, opts.recv_window)
    window=Cited(24576, "default_options.h", _RELEASE, "#define DEFAULT_RECV_WINDOW 24576"),
    # ... and buf_putint(ses.writepayload, RECV_MAX_CHANNEL_DATA_LEN): 32768 less the channel data header
    max_packet=Cited(32768 - (1 + 4 + 4), "common-channel.c", _RELEASE,
                     "#define RECV_MAX_CHANNEL_DATA_LEN (RECV_MAX_PAYLOAD_LEN-(1+4+4))"),
    # common-runopts.c parse_recv_window: 0 or junk keeps the default, above MAX_RECV_WINDOW is lowered to it
    # (with a warning on stderr); `dbclient -h`: "-W <receive_window_buffer> (default 24576, larger may be
    # faster, max 10MB)"
    knobs=(Knob("-W", "24576 (DEFAULT_RECV_WINDOW)", "dbclient -W BYTES", 1, _MAX_WINDOW, window=True),),
    driver="dbclient_pipe.py",
    program="dbclient",
    says_negotiation=False,
    interpreter_flags=("-S",),  # the driver imports the standard library only: its start stays ~20 ms of set-up
)
