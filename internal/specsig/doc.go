// Package specsig holds what makes a stored plan trustworthy: the
// canonical form of a custom step's specification, its SHA-256
// (spec_hash), its HMAC-SHA256 signature under the keys of
// pipeline.custom.spec_key_refs, the signature of the plan as a whole (its
// deploy, its steps in order), and the checks a worker makes before it
// runs a step (the plan's signature, the hash, the step's signature, the
// revoked hashes).
//
// It imports deploy and the standard library.
package specsig
