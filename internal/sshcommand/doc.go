// Package sshcommand runs one attempt of a custom command step on one
// target over SSH: it makes the attempt's directory of secrets on the
// target (removing those of earlier attempts), writes the environment file
// and the secrets over the SSH channel, checks run.sha256, runs the command
// as positional parameters of /bin/sh under timeout(1), reads and checks
// the outputs it wrote, and removes the directory; its errors say which
// failures are temporary (exit 75, a timeout, a connection lost) and which
// permanent, and never hold a secret.
//
// It imports deploy, internal/sshexec and the standard library.
package sshcommand
