// sshbench's driver for Go's golang.org/x/crypto/ssh: one connection, one remote command, stdin to the channel
// and the channel to stdout, the way Terraform's, Packer's or an agent's Go code uses the library.
//
// A program of its own, compiled from this directory into the venv's opt/ by `sshbench clients install
// goxcrypto` (targets/driverbuild.py), at the module versions go.mod and go.sum pin; sshbench never links it.
// It keeps the driver contract (clientparts/base.py and drivers/contract.py spell it; this file spells the same
// words again, since a Go program cannot import them):
//
//	sshbench-goxcrypto --probe      # its version and what it can be told to use, as JSON on stdout
//	sshbench-goxcrypto --host H --port P --user U --identity KEY --known-hosts FILE --alias NAME
//	                   --expect-dir DIR [--server-log] --direction upload|download
//	                   [--cipher C] [--mac M] [--kex K] [--hostkey A] -- COMMAND
//
// Its socket is its own, made as targets/fdpass.py makes ssh's: bound first (in the dialer's Control hook, before
// Go's connect), its port announced to the embedded server's listener (with --server-log, the word "log": that
// server logs the connection's negotiation, servers/inetd.py), then connected, with TCP_NODELAY (Go's default
// too). Then what a user's program does: ssh.NewClientConn with the run's key (ssh.PublicKeys) and the run's
// known_hosts under the alias (knownhosts.New, the library's own check), ssh.NewClient, NewSession, and Start and
// Wait (what Run does) with Stdin, Stdout and Stderr set to ours, so the library's own copying moves the bytes
// (through counters that only note how many and when). Only what the request pins may be negotiated: ssh.Config's Ciphers, MACs and
// KeyExchanges and ClientConfig's HostKeyAlgorithms hold that one name, a name the library lacks is refused before
// connecting (it would silently ignore it, Config's documentation says), and what was agreed is read back
// (AlgorithmsConnMetadata) and checked. Everything else is the library's default: its window, packet size,
// preference order. Its last stderr line is `SSHBENCH-CLIENT {json}`; on any failure one line `sshbench-client
// goxcrypto: why`, exit 255, as ssh exits.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
	"golang.org/x/sys/unix"
)

const (
	name    = "goxcrypto"
	mark    = "SSHBENCH-CLIENT" // contract.MARK
	failed  = "sshbench-client" // contract.FAILED
	logged  = "log"             // contract.LOGGED: servers/inetd.py logs this connection's negotiation
	timeout = 20 * time.Second  // connect, key exchange, authentication and the session's open, together
	// What x/crypto/ssh advertises for every channel it opens (ssh/channel.go, not exported, so not readable at
	// run time: the part cites them, clientparts/goxcrypto.py, and the server's log shows them):
	// channelMaxPacket = 1 << 15, channelWindowSize = 64 * channelMaxPacket
	window    = 64 * (1 << 15)
	maxPacket = 1 << 15
	implicit  = "<implicit>" // the MAC under an AEAD cipher, as ssh -v and sshd say it
	module    = "golang.org/x/crypto"
)

// now is CLOCK_MONOTONIC in seconds, the clock every driver's marks are on (the same in every process here).
func now() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return float64(ts.Sec) + float64(ts.Nsec)/1e9
}

// version is the x/crypto this program was built with, as its build info says (go.mod's pin).
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == module {
				return strings.TrimPrefix(dep.Version, "v")
			}
		}
	}
	return "unknown"
}

// has is every name the library can be told to use, by kind, in its preference order: the ones it calls
// supported, then the ones it has but calls insecure, and for key exchange the old name of Curve25519, which it
// takes by name (kex.go: kexAlgoMap[keyExchangeCurve25519LibSSH]).
func has() map[string][]string {
	safe, insecure := ssh.SupportedAlgorithms(), ssh.InsecureAlgorithms()
	return map[string][]string{
		"ciphers": slices.Concat(safe.Ciphers, insecure.Ciphers),
		"macs":    slices.Concat(safe.MACs, insecure.MACs),
		"kex":     slices.Concat(safe.KeyExchanges, insecure.KeyExchanges, []string{"curve25519-sha256@libssh.org"}),
		"keys":    slices.Concat(safe.HostKeys, insecure.HostKeys),
	}
}

type request struct {
	probe, serverLog, compression           bool
	host, user, identity, knownHosts, alias string
	expectDir, direction, command           string
	cipher, mac, kex, hostkey               string
	port                                    int
}

// arguments reads the contract's arguments (contract.arguments); a bad one is flag's own message and exit 2.
func arguments(argv []string) request {
	var r request
	flags := flag.NewFlagSet("sshbench-goxcrypto", flag.ExitOnError)
	flags.BoolVar(&r.probe, "probe", false, "its version and what it can negotiate, as JSON")
	for _, s := range []struct {
		at   *string
		flag string
	}{{&r.host, "host"}, {&r.user, "user"}, {&r.identity, "identity"}, {&r.knownHosts, "known-hosts"},
		{&r.alias, "alias"}, {&r.expectDir, "expect-dir"}, {&r.cipher, "cipher"}, {&r.mac, "mac"},
		{&r.kex, "kex"}, {&r.hostkey, "hostkey"}} {
		flags.StringVar(s.at, s.flag, "", "")
	}
	flags.StringVar(&r.direction, "direction", "upload", "upload or download")
	flags.IntVar(&r.port, "port", 0, "")
	flags.BoolVar(&r.serverLog, "server-log", false, "ask the embedded server to log this connection")
	flags.BoolVar(&r.compression, "compression", false, "SSH's own compression (refused: the library has none)")
	_ = flags.Parse(argv)
	r.command = strings.Join(flags.Args(), " ")
	if !r.probe && (r.host == "" || r.port == 0 || r.user == "" || r.identity == "" || r.knownHosts == "" ||
		r.alias == "" || r.expectDir == "" || flags.NArg() != 1) {
		fmt.Fprintln(os.Stderr, "sshbench-goxcrypto: --host, --port, --user, --identity, --known-hosts, --alias, "+
			"--expect-dir and COMMAND are needed")
		os.Exit(2)
	}
	return r
}

// pinned refuses, before connecting, a name the library lacks (it would drop it silently and offer none).
func pinned(r request) error {
	lists := has()
	for _, p := range []struct{ name, kind, words string }{{r.cipher, "ciphers", "cipher"}, {r.mac, "macs", "MAC"},
		{r.kex, "kex", "key exchange"}, {r.hostkey, "keys", "host key algorithm"}} {
		if p.name != "" && !slices.Contains(lists[p.kind], p.name) {
			return fmt.Errorf("x/crypto/ssh %s cannot use %s %s (it has: %s)", version(), p.words, p.name,
				strings.Join(lists[p.kind], ", "))
		}
	}
	if r.compression {
		return fmt.Errorf("x/crypto/ssh %s has no compression (it offers none only)", version())
	}
	return nil
}

func only(name string) []string {
	if name == "" {
		return nil // the library's default
	}
	return []string{name}
}

// announce tells the listener that a connection comes from `port` (contract.announce).
func announce(r request, port int) error {
	words := ""
	if r.serverLog {
		words = logged
	}
	return os.WriteFile(filepath.Join(r.expectDir, strconv.Itoa(port)), []byte(words), 0o600)
}

// dial is the driver's own TCP connection (contract.connected): bound to a port of its own and announced before
// Go connects it (a Dialer's Control runs after socket() and before connect()).
func dial(r request) (net.Conn, error) {
	dialer := net.Dialer{Timeout: timeout, Control: func(network, address string, raw syscall.RawConn) error {
		var err error
		if ctl := raw.Control(func(fd uintptr) {
			if err = unix.Bind(int(fd), &unix.SockaddrInet4{}); err != nil {
				return
			}
			var bound unix.Sockaddr
			if bound, err = unix.Getsockname(int(fd)); err != nil {
				return
			}
			if inet, ok := bound.(*unix.SockaddrInet4); ok {
				err = announce(r, inet.Port)
			} else {
				err = fmt.Errorf("bound to %v, not an IPv4 port", bound)
			}
		}); ctl != nil {
			return ctl
		}
		return err
	}}
	conn, err := dialer.Dial("tcp4", net.JoinHostPort(r.host, strconv.Itoa(r.port)))
	if err != nil {
		return nil, fmt.Errorf("connect to %s port %d: %w", r.host, r.port, err)
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetNoDelay(true)
	}
	return conn, nil
}

// counted notes how many bytes went through and when: the first, and the last (for a reader, the moment its next
// Read began: the chunk before had been handed on).
type counted struct {
	bytes       int64
	first, last float64
}

type reader struct {
	io.Reader
	*counted
}

func (c reader) Read(p []byte) (int, error) {
	if c.bytes > 0 {
		c.last = now()
	}
	n, err := c.Reader.Read(p)
	if n > 0 && c.first == 0 {
		c.first = now()
	}
	c.bytes += int64(n)
	return n, err
}

type writer struct {
	io.Writer
	*counted
}

func (c writer) Write(p []byte) (int, error) {
	n, err := c.Writer.Write(p)
	c.bytes += int64(n)
	c.last = now()
	return n, err
}

func agreed(r request, conn ssh.Conn) (map[string]string, error) {
	meta, ok := conn.(ssh.AlgorithmsConnMetadata)
	if !ok {
		return nil, errors.New("this x/crypto/ssh does not say what it negotiated (no AlgorithmsConnMetadata)")
	}
	algorithms := meta.Algorithms()
	mac := func(d ssh.DirectionAlgorithms) string {
		if d.MAC == "" { // an AEAD cipher: no MAC was negotiated (common.go findAgreedAlgorithms)
			return implicit
		}
		return d.MAC
	}
	said := map[string]string{"kex": algorithms.KeyExchange, "hostkey": algorithms.HostKey,
		"cipher_c2s": algorithms.Write.Cipher, "cipher_s2c": algorithms.Read.Cipher,
		"mac_c2s": mac(algorithms.Write), "mac_s2c": mac(algorithms.Read),
		// the library has only "none" (common.go: supportedCompressions)
		"compression_c2s": "none", "compression_s2c": "none", "server_version": string(conn.ServerVersion())}
	for _, want := range []struct{ key, name string }{{"cipher_c2s", r.cipher}, {"cipher_s2c", r.cipher},
		{"kex", r.kex}, {"hostkey", r.hostkey}, {"mac_c2s", r.mac}, {"mac_s2c", r.mac}} {
		if want.name != "" && said[want.key] != want.name && said[want.key] != implicit {
			return nil, fmt.Errorf("asked for %s but x/crypto/ssh %s agreed %s (%s)", want.name, version(),
				said[want.key], want.key)
		}
	}
	return said, nil
}

func session(r request, marks map[string]float64) (int, error) {
	if err := pinned(r); err != nil {
		return 0, err
	}
	raw, err := os.ReadFile(r.identity)
	if err != nil {
		return 0, err
	}
	signer, err := ssh.ParsePrivateKey(raw)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", r.identity, err)
	}
	known, err := knownhosts.New(r.knownHosts)
	if err != nil {
		return 0, err
	}
	var first sync.Once
	var kexDone float64
	config := &ssh.ClientConfig{User: r.user, Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyAlgorithms: only(r.hostkey), Timeout: timeout,
		Config: ssh.Config{Ciphers: only(r.cipher), MACs: only(r.mac), KeyExchanges: only(r.kex)},
		// the library's own known_hosts check, under the alias; called in each key exchange (in the library's
		// own goroutine), before NEWKEYS: the first one's moment is the mark, a later re-exchange's is not
		HostKeyCallback: func(host string, remote net.Addr, key ssh.PublicKey) error {
			err := known(host, remote, key)
			first.Do(func() { kexDone = now() })
			return err
		}}
	conn, err := dial(r)
	if err != nil {
		return 0, err
	}
	marks["connected"] = now()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	sshConn, channels, requests, err := ssh.NewClientConn(conn, net.JoinHostPort(r.alias, "22"), config)
	if err != nil {
		return 0, err
	}
	marks["kex_done"], marks["authenticated"] = kexDone, now() // NewClientConn has returned: the callback ran
	client := ssh.NewClient(sshConn, channels, requests)
	defer client.Close()
	said, err := agreed(r, sshConn)
	if err != nil {
		return 0, err
	}
	s, err := client.NewSession()
	if err != nil {
		return 0, err
	}
	in, out := &counted{}, &counted{}
	s.Stdin, s.Stdout, s.Stderr = reader{os.Stdin, in}, writer{os.Stdout, out}, os.Stderr
	if err := s.Start(r.command); err != nil {
		return 0, err
	}
	marks["session_open"] = now()
	_ = conn.SetDeadline(time.Time{}) // the data phase is bounded by the sample's own timeout
	status := 0
	if err := s.Wait(); err != nil {
		var exit *ssh.ExitError
		if !errors.As(err, &exit) {
			return 0, err
		}
		status = exit.ExitStatus()
	}
	start, end := in.first, out.last
	if r.direction == "upload" {
		end = in.last
	}
	for key, at := range map[string]float64{"data_started": start, "data_ended": end} {
		if at > 0 {
			marks[key] = at
		}
	}
	line := map[string]any{"client": name, "version": version(), "window": window, "max_packet": maxPacket,
		"marks": marks, "bytes_in": in.bytes, "bytes_out": out.bytes, "exit_status": status}
	for key, value := range said {
		line[key] = value
	}
	text, _ := json.Marshal(line)
	fmt.Fprintf(os.Stderr, "%s %s\n", mark, text)
	return status, nil
}

func main() {
	marks := map[string]float64{"started": now()}
	r := arguments(os.Args[1:])
	if r.probe {
		lists := has()
		text, _ := json.Marshal(map[string]any{"client": name, "version": version(), "ciphers": lists["ciphers"],
			"macs": lists["macs"], "kex": lists["kex"], "keys": lists["keys"], "window": window,
			"max_packet": maxPacket, "go": runtime.Version()})
		fmt.Println(string(text))
		return
	}
	status, err := session(r, marks)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: %s\n", failed, name, strings.ReplaceAll(err.Error(), "\n", " "))
		os.Exit(255)
	}
	if status < 0 || status > 255 {
		status = 255
	}
	os.Exit(status)
}
