// Command pgctl starts and stops the embedded PostgreSQL that `make test`
// shares between all test packages of a run. It imports internal/embeddedpg
// and the standard library.
//
//	pgctl start --dir D [--port N] [--ephemeral] [--bin DIR]   prints the URL, leaves PostgreSQL running
//	pgctl stop  --dir D [--ephemeral]                           stops it (and removes it when ephemeral)
package main
