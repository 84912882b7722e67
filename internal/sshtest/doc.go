// Package sshtest is an SSH server for tests, in process, built on
// golang.org/x/crypto/ssh: each of its users logs in with a key or a
// password to a home directory of its own, where exec requests run real
// commands (/bin/sh -c) and the sftp subsystem serves files. It counts the
// sessions open at once and the exec requests it received, drops
// connections on demand and changes its host key, so tests can prove what
// a client did and did not do.
//
// It imports golang.org/x/crypto/ssh, github.com/pkg/sftp and the standard
// library; only tests import it.
package sshtest
