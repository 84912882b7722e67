// Command pgctl starts and stops the embedded PostgreSQL that `make test`
// shares between all test packages of a run, and removes the clusters of a
// checkout for `make clean`. It imports internal/embeddedpg and the
// standard library.
//
//	pgctl start --dir D [--port N] [--ephemeral] [--bin DIR]   prints the URL, leaves PostgreSQL running
//	pgctl stop  --dir D [--ephemeral]                           stops it (and removes it when ephemeral)
//	pgctl remove --dir D                                        stops it and removes its cluster, wherever it lives
//	pgctl remove-binaries [--bin DIR]                           removes the copy of the binaries made as root
package main
