// Package secrets holds the built-in secret providers: env: (environment
// variables with a fixed prefix) and file: (files under a root directory),
// and Keys, which reads the signing keys where those providers cannot.
//
// It imports deploy and the standard library.
package secrets
