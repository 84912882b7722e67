// Package e2e holds the black-box tests of manent: they build the real
// binaries, start manent-server on a free port against PostgreSQL, and
// drive it with the manent CLI (and, in playwright/, a real browser).
//
// It imports only internal/pgtest, internal/sshfleet (the loopback OpenSSH
// fleet of the ssh plugin's tests), deploy and engine/gates (the rollout's
// gates checked against a real Prometheus, until the server runs rollouts)
// and the standard library: everything else is reached through the
// binaries.
package e2e
