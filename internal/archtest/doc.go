// Package archtest makes the written import rules executable: its test reads
// the import sentence of every package's doc.go and holds the package's
// imports to it, and to the dependency direction of the design.
//
// It imports only the standard library.
package archtest
