// Package sshexec is manent's SSH client: it checks every host key against
// a known_hosts file, authenticates with a key or a password, runs commands
// with connect and command timeouts while it streams their output line by
// line under caps, transfers files (sftp, or the session's stdin when the
// target has no sftp subsystem), and pools connections so that a host never
// sees more than a set number of sessions at once.
//
// It imports deploy, golang.org/x/crypto/ssh, github.com/pkg/sftp and the
// standard library.
package sshexec
