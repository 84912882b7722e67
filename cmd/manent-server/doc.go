// Command manent-server runs manent's API and workers: flags to server.Main.
//
// It imports server, cobra and the standard library.
package main
