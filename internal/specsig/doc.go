// Package specsig holds what makes the specification of a custom step in a
// stored plan trustworthy: its canonical form, its SHA-256 (spec_hash), its
// HMAC-SHA256 signature under the keys of pipeline.custom.spec_key_refs,
// and the check a worker makes before it runs the step (the hash, the
// signature, the revoked hashes).
//
// It imports deploy and the standard library.
package specsig
