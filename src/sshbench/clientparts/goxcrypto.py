"""Go's golang.org/x/crypto/ssh: the SSH library under Terraform's and Packer's provisioners, Gitea, many agents and
Kubernetes tooling.

Measured through its driver (drivers/goxcrypto/main.go), a Go program written as those programs use the
library (ssh.NewClientConn, NewClient, NewSession, Start and Wait with Stdin and Stdout set), compiled by
`sshbench clients install goxcrypto` into the venv's opt/ at the versions its go.mod and go.sum pin
(targets/driverbuild.py), and then started as itself: wait4 gives the whole program's CPU (the Go runtime, its
goroutines, the library's crypto, which is Go's own: crypto/aes with AES-NI assembly, x/crypto's
chacha20poly1305). Its version is the one its build pinned, and its window and packet size are read in that
release's ssh/channel.go; tests/unit/test_clientparts_goxcrypto.py holds the pin, and the cited lines in the
module's source where the Go module cache has it, so an upgrade that moves them fails there.
"""

from __future__ import annotations

from sshbench.clientparts.base import Can, Cited, ClientPart, Knob
from sshbench.clientparts.built import Built

_VERSION = "0.58.0"  # drivers/goxcrypto/go.mod: require golang.org/x/crypto v0.58.0 (go.sum holds its hash)
_RELEASE = f"golang.org/x/crypto v{_VERSION}"

GOXCRYPTO = ClientPart(
    name="goxcrypto",
    title="Go's x/crypto/ssh",
    implementation="go-x-crypto",
    distribution=None,
    install="sshbench clients install goxcrypto (or: make clients; it needs Go 1.26 or newer on PATH)",
    can=frozenset({Can.PIPE_UPLOAD, Can.PIPE_DOWNLOAD}),  # pkg/sftp over it: a later driver; it has no compression
    # ssh/channel.go mux.newChannel: myWindow: channelWindowSize, maxIncomingPayload: channelMaxPacket; ssh/mux.go
    # openChannel puts both in every CHANNEL_OPEN (PeersWindow: ch.myWindow, MaxPacketSize: ch.maxIncomingPayload)
    window=Cited(64 * (1 << 15), "ssh/channel.go", _RELEASE, "channelWindowSize = 64 * channelMaxPacket"),
    max_packet=Cited(1 << 15, "ssh/channel.go", _RELEASE, "channelMaxPacket = 1 << 15"),
    knobs=(Knob("window", "2097152 (channelWindowSize)",
                "compiled in: no option of the library sets it (ssh/channel.go's constants: only a patched copy)"),
           Knob("Ciphers", "aes128-gcm@openssh.com first (common.go: defaultCiphers = supportedCiphers)",
                "ssh.ClientConfig{Config: ssh.Config{Ciphers: []string{...}, MACs: ..., KeyExchanges: ...}}")),
    driver="goxcrypto",
    built=Built(sources="goxcrypto", program="sshbench-goxcrypto", toolchain="go",
                toolchain_install="Go 1.26 or newer (go.dev/dl, or your distribution's golang package)",
                module="golang.org/x/crypto", release=_VERSION),
)
