// Package sshfleet runs a fleet of SSH "hosts" on this machine with OpenSSH's
// own sshd: one sshd of the fleet's (never the system service) on a loopback
// port, with a config, a host key, authorized keys and a log of its own;
// local users as the hosts, each with its home directory; a deploy key and
// a known_hosts file for the client; and a forced command that records
// every command a client runs before running it. The end-to-end tests of
// the ssh plugin and the demo of examples/ssh use it. It needs root (sshd
// logs in several users only as root) and the openssh-server package.
//
// It imports only the standard library; only tests and examples/ssh import it.
package sshfleet
