package specsig

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"manent.dev/manent/deploy"
)

// MinKeyBytes is the shortest key that may sign: HMAC-SHA256 is as strong
// as its key up to the 32 bytes of the hash.
const MinKeyBytes = 32

// The reasons Verify refuses a step (and VerifyPlan a plan), for errors.Is. Each one is permanent:
// running the step again cannot change the stored plan.
var (
	// ErrNoSpec: a custom step of the plan carries no specification.
	ErrNoSpec = errors.New("the plan holds no specification for the step")
	// ErrTampered: the specification does not hash to its spec_hash, or
	// does not say what its planned step says.
	ErrTampered = errors.New("the specification does not match the plan")
	// ErrRevoked: the spec_hash is in pipeline.custom.revoked_specs.
	ErrRevoked = errors.New("the specification is revoked")
	// ErrUnsigned: keys are configured and the step, or the plan, has no
	// signature.
	ErrUnsigned = errors.New("no signature")
	// ErrBadSignature: no configured key verifies the signature (of the
	// step, or of the plan).
	ErrBadSignature = errors.New("the signature does not verify")
)

// Keyring signs the specifications of plans and checks them before they
// run: the first key signs, every key verifies, and the revoked hashes
// never run. A nil *Keyring has no keys and revokes nothing.
type Keyring struct {
	keys    [][]byte
	revoked map[string]bool
}

// New returns a keyring with keys (each at least MinKeyBytes long) and the
// revoked spec hashes.
func New(keys [][]byte, revoked []string) (*Keyring, error) {
	k := &Keyring{revoked: map[string]bool{}}
	for i, key := range keys {
		if len(key) < MinKeyBytes {
			return nil, fmt.Errorf("spec key %d has %d bytes: at least %d are needed", i+1, len(key), MinKeyBytes)
		}
		k.keys = append(k.keys, append([]byte(nil), key...))
	}
	for _, h := range revoked {
		k.revoked[h] = true
	}
	return k, nil
}

// Resolver reads a secret reference (env:NAME, file:path).
type Resolver interface {
	Resolve(ctx context.Context, ref string) (string, error)
}

// ResolveKeys reads the keys of pipeline.custom.spec_key_refs. An error
// names the reference and what is wrong with it, never a value.
func ResolveKeys(ctx context.Context, r Resolver, refs []string) ([][]byte, error) {
	keys := make([][]byte, 0, len(refs))
	for i, ref := range refs {
		v, err := r.Resolve(ctx, ref)
		if err != nil {
			return nil, fmt.Errorf("pipeline.custom.spec_key_refs[%d]: %w", i, err)
		}
		if len(v) < MinKeyBytes {
			return nil, fmt.Errorf("pipeline.custom.spec_key_refs[%d]: the key %s has %d bytes: at least %d are needed (openssl rand -hex 32 prints 64)",
				i, ref, len(v), MinKeyBytes)
		}
		keys = append(keys, []byte(v))
	}
	return keys, nil
}

// Signs reports whether the keyring has keys: plans are signed, and
// unsigned specifications refused.
func (k *Keyring) Signs() bool { return k != nil && len(k.keys) > 0 }

// Revoked reports whether a spec_hash is revoked.
func (k *Keyring) Revoked(hash string) bool { return k != nil && k.revoked[hash] }

// Seal gives every custom step of the plan its spec_hash and, when the
// keyring has keys, its signature under the first key.
func (k *Keyring) Seal(p *deploy.Plan) error {
	for i := range p.Steps {
		s := &p.Steps[i]
		if s.Spec == nil {
			continue
		}
		c, err := Canonical(s.Spec)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(c)
		s.SpecHash = hex.EncodeToString(sum[:])
		s.Signature = ""
		if k.Signs() {
			s.Signature = sign(k.keys[0], c)
		}
	}
	return nil
}

func sign(key, canonical []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(canonical)
	return hex.EncodeToString(m.Sum(nil))
}

// Verify checks a custom step of a stored plan before it runs: its
// specification must hash to its spec_hash and say what the planned step
// says (name, type, retries, timeout), its hash must not be revoked, and,
// when the keyring has keys, one of them must verify its signature.
// Without keys, unsigned specifications are accepted. Every refusal is
// permanent (deploy.IsPermanent) and wraps one of the Err values; its
// message names the step and the hash, never a command or a URL.
func (k *Keyring) Verify(step deploy.PlannedStep) error {
	refuse := func(reason error, format string, args ...any) error {
		return deploy.Permanent(fmt.Errorf("step %s: %s: %w", step.Name, fmt.Sprintf(format, args...), reason))
	}
	spec := step.Spec
	if spec == nil {
		return refuse(ErrNoSpec, "the deploy cannot run it")
	}
	if spec.Name != step.Name || spec.Type != step.Type || spec.MaxRetries != step.MaxRetries || spec.Timeout != step.Timeout {
		return refuse(ErrTampered, "its name, type, max_retries or timeout differ from the plan's")
	}
	c, err := Canonical(spec)
	if err != nil {
		return refuse(ErrTampered, "%v", err)
	}
	sum := sha256.Sum256(c)
	hash := hex.EncodeToString(sum[:])
	if hash != step.SpecHash {
		return refuse(ErrTampered, "its specification hashes to %s, the plan records %s", hash, step.SpecHash)
	}
	if k.Revoked(hash) {
		return refuse(ErrRevoked, "spec_hash %s is in pipeline.custom.revoked_specs", hash)
	}
	if !k.Signs() {
		return nil
	}
	if step.Signature == "" {
		return refuse(ErrUnsigned, "pipeline.custom.spec_key_refs requires signed specifications (spec_hash %s)", hash)
	}
	got, err := hex.DecodeString(step.Signature)
	if err == nil {
		for _, key := range k.keys {
			m := hmac.New(sha256.New, key)
			m.Write(c)
			if hmac.Equal(m.Sum(nil), got) {
				return nil
			}
		}
	}
	return refuse(ErrBadSignature, "no key of pipeline.custom.spec_key_refs signed spec_hash %s", hash)
}
