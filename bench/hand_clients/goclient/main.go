// One transfer with golang.org/x/crypto/ssh the way Go programs do it: the oracle of bench/clients_vs_hand.py,
// written without sshbench's driver (src/sshbench/clientparts/drivers/goxcrypto), so a mistake there cannot
// hide here too.
//
// Usage: goclient HOST PORT USER KEY KNOWN_HOSTS CIPHER MAC upload|download FILE
//
// ssh.Dial with the key (ssh.PublicKeys), knownhosts.New(KNOWN_HOSTS) as the host key check, and the cipher
// (and MAC, unless "none") pinned in ssh.Config; then NewSession and Run: an upload with session.Stdin the open
// FILE into `cat >/dev/null` (the library copies it), a download `cat < FILE` with session.Stdout io.Discard.
// Exits with the remote command's status (1 with the error on stderr for anything else).
package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func main() {
	if len(os.Args) != 10 {
		fmt.Fprintln(os.Stderr, "usage: goclient HOST PORT USER KEY KNOWN_HOSTS CIPHER MAC upload|download FILE")
		os.Exit(2)
	}
	host, port, user, keyFile, knownHosts := os.Args[1], os.Args[2], os.Args[3], os.Args[4], os.Args[5]
	cipher, mac, direction, path := os.Args[6], os.Args[7], os.Args[8], os.Args[9]
	raw, err := os.ReadFile(keyFile)
	check(err)
	signer, err := ssh.ParsePrivateKey(raw)
	check(err)
	hostKeys, err := knownhosts.New(knownHosts)
	check(err)
	config := &ssh.ClientConfig{
		User:            user,
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: hostKeys,
		Timeout:         30 * time.Second,
	}
	config.Ciphers = []string{cipher}
	if mac != "none" {
		config.MACs = []string{mac}
	}
	client, err := ssh.Dial("tcp", net.JoinHostPort(host, port), config)
	check(err)
	defer client.Close()
	session, err := client.NewSession()
	check(err)
	command := "cat >/dev/null"
	if direction == "upload" {
		file, err := os.Open(path)
		check(err)
		defer file.Close()
		session.Stdin = file
	} else {
		command = "cat < '" + path + "'" // the bench's own temp path: no quote in it
		session.Stdout = io.Discard
	}
	session.Stderr = os.Stderr
	err = session.Run(command)
	var exit *ssh.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitStatus())
	}
	check(err)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "goclient:", err)
		os.Exit(1)
	}
}
