// Package tokens authenticates the static bearer tokens of manent.yml,
// stored as SHA-256 hashes, into token:<name> identities.
//
// It imports deploy, config and the standard library.
package tokens
