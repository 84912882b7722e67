package sshexec_test

import (
	"golang.org/x/crypto/ssh"

	"manent.dev/manent/internal/sshtest"
)

func sshFingerprint(srv *sshtest.Server) string { return ssh.FingerprintSHA256(srv.HostKey()) }
