// Command ssh starts the demo's SSH fleet: OpenSSH's sshd on 127.0.0.1:2222
// with three local users as three hosts, the deploy key and the known_hosts
// file that the environment hello/ssh of examples/ uses. Run it as root from
// the checkout, `go run ./examples/ssh`, and stop it with Ctrl-C; README.md
// tells the rest.
//
// It imports internal/sshfleet and the standard library.
package main
