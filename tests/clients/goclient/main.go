// A minimal SSH client on golang.org/x/crypto/ssh with its default algorithms, for sshbench's tests:
// the lock-out check predicts whether Go programs (Terraform, Packer, Gitea, many agents) can log in
// to a server config, and the integration tests check that prediction with this real client.
//
// Usage: goclient HOST PORT USER KEYFILE COMMAND
// Exit 0 and the command's output on success; otherwise the error on stderr and exit 1.
package main

import (
	"fmt"
	"net"
	"os"
	"time"

	"golang.org/x/crypto/ssh"
)

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: goclient HOST PORT USER KEYFILE COMMAND")
		os.Exit(2)
	}
	host, port, user, keyFile, command := os.Args[1], os.Args[2], os.Args[3], os.Args[4], os.Args[5]
	auth := []ssh.AuthMethod{}
	if raw, err := os.ReadFile(keyFile); err == nil {
		signer, err := ssh.ParsePrivateKey(raw)
		if err != nil {
			fail(err)
		}
		auth = append(auth, ssh.PublicKeys(signer))
	}
	config := &ssh.ClientConfig{
		User:            user,
		Auth:            auth,
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), // a test server with throwaway keys
		Timeout:         20 * time.Second,
	}
	client, err := ssh.Dial("tcp", net.JoinHostPort(host, port), config)
	if err != nil {
		fail(err)
	}
	defer client.Close()
	session, err := client.NewSession()
	if err != nil {
		fail(err)
	}
	out, err := session.CombinedOutput(command)
	os.Stdout.Write(out)
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
