package specsig_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/specsig"
)

func spec() *deploy.CustomSpec {
	def := "x"
	return &deploy.CustomSpec{
		Name: "cdn-purge", Type: deploy.StepTypeHTTP, Timeout: 10 * time.Minute, MaxRetries: 2,
		Secrets: []string{"cdn-token"},
		Params:  map[string]deploy.ParamSpec{"zone": {Pattern: "[a-f0-9]{32}", Required: true}, "tag": {Pattern: ".*", Default: &def}},
		Run: deploy.CustomRun{Method: "POST", URL: "https://api.example.com/zones/{{ .Params.zone }}/purge?a=<b>&c",
			JSON: map[string]any{"z": []any{1.0, 1e21, 0.1, math.Copysign(0, -1), 123456789.0, "é\u2028<"}, "a": map[string]any{}, "n": nil, "t": true}},
	}
}

func planWith(s *deploy.CustomSpec) deploy.Plan {
	return deploy.Plan{Steps: []deploy.PlannedStep{
		{Name: "config", Type: "standard"},
		{Name: s.Name, Type: s.Type, MaxRetries: s.MaxRetries, Timeout: s.Timeout, Spec: s},
	}}
}

// TestCanonicalForm pins the canonical form: sorted members, numbers in
// their shortest float form, no HTML escaping, and the same bytes after a
// JSON round trip of the plan.
func TestCanonicalForm(t *testing.T) {
	c, err := specsig.Canonical(spec())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"max_retries":2,"name":"cdn-purge","params":{"tag":{"default":"x","pattern":".*"},"zone":{"pattern":"[a-f0-9]{32}","required":true}},` +
		`"run":{"json":{"a":{},"n":null,"t":true,"z":[1,1e+21,0.1,0,123456789,"é\u2028<"]},"method":"POST","url":"https://api.example.com/zones/{{ .Params.zone }}/purge?a=<b>&c"},` +
		`"secrets":["cdn-token"],"timeout":600000000000,"type":"http"}`
	if string(c) != want {
		t.Fatalf("canonical form:\n got %s\nwant %s", c, want)
	}
	raw, err := json.Marshal(planWith(spec()))
	if err != nil {
		t.Fatal(err)
	}
	var back deploy.Plan
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	again, err := specsig.Canonical(back.Steps[1].Spec)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(c) {
		t.Fatalf("a JSON round trip changed the canonical form:\n%s\n%s", again, c)
	}
}

func key(b byte) []byte { return []byte(strings.Repeat(string(b), 32)) }

func sealed(t *testing.T, k *specsig.Keyring) deploy.PlannedStep {
	t.Helper()
	p := planWith(spec())
	if err := k.Seal(&p); err != nil {
		t.Fatal(err)
	}
	if p.Steps[0].SpecHash != "" || p.Steps[0].Signature != "" {
		t.Fatal("a standard step was sealed")
	}
	return p.Steps[1]
}

func TestSealAndVerify(t *testing.T) {
	oldKey, newKey := key('o'), key('n')
	signedOld := func(t *testing.T) deploy.PlannedStep {
		k, err := specsig.New([][]byte{oldKey}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return sealed(t, k)
	}
	hash, _ := specsig.Hash(spec())
	tests := []struct {
		name    string
		keys    [][]byte
		revoked []string
		step    func(t *testing.T) deploy.PlannedStep
		want    error // nil: accepted
	}{
		{name: "signed, verified by its key", keys: [][]byte{oldKey}, step: signedOld},
		{name: "rotation: the new key signs, the old one still verifies", keys: [][]byte{newKey, oldKey}, step: signedOld},
		{name: "rotation done: the old key is gone", keys: [][]byte{newKey}, step: signedOld, want: specsig.ErrBadSignature},
		{name: "no keys: a signed one runs", step: signedOld},
		{name: "no keys: an unsigned one runs", step: func(t *testing.T) deploy.PlannedStep { return sealed(t, nil) }},
		{name: "keys: an unsigned one is refused", keys: [][]byte{oldKey},
			step: func(t *testing.T) deploy.PlannedStep { return sealed(t, nil) }, want: specsig.ErrUnsigned},
		{name: "a signature that is not hex", keys: [][]byte{oldKey}, want: specsig.ErrBadSignature,
			step: func(t *testing.T) deploy.PlannedStep { s := signedOld(t); s.Signature = "zz"; return s }},
		{name: "revoked, even when signed", keys: [][]byte{oldKey}, revoked: []string{hash}, step: signedOld, want: specsig.ErrRevoked},
		{name: "revoked without keys", revoked: []string{hash}, want: specsig.ErrRevoked,
			step: func(t *testing.T) deploy.PlannedStep { return sealed(t, nil) }},
		{name: "the command changed, hash kept", keys: [][]byte{oldKey}, want: specsig.ErrTampered,
			step: func(t *testing.T) deploy.PlannedStep {
				s := signedOld(t)
				s.Spec.Run.URL = "https://evil.example.com/"
				return s
			}},
		{name: "changed and rehashed, without keys to tell", keys: [][]byte{oldKey}, want: specsig.ErrBadSignature,
			step: func(t *testing.T) deploy.PlannedStep {
				s := signedOld(t)
				s.Spec.Run.URL = "https://evil.example.com/"
				s.SpecHash, _ = specsig.Hash(s.Spec)
				return s
			}},
		{name: "the planned step says other than its specification", keys: [][]byte{oldKey}, want: specsig.ErrTampered,
			step: func(t *testing.T) deploy.PlannedStep { s := signedOld(t); s.MaxRetries = 100; return s }},
		{name: "no specification", want: specsig.ErrNoSpec,
			step: func(t *testing.T) deploy.PlannedStep {
				return deploy.PlannedStep{Name: "x", Type: deploy.StepTypeCommand}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := specsig.New(tt.keys, tt.revoked)
			if err != nil {
				t.Fatal(err)
			}
			err = k.Verify(tt.step(t))
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Fatalf("err = %v, want %v", err, tt.want)
			case tt.want != nil && !deploy.IsPermanent(err):
				t.Fatalf("err %v is not permanent", err)
			case err != nil && strings.Contains(err.Error(), "https://"):
				t.Fatalf("the error shows the URL: %v", err)
			}
		})
	}
}

func TestSignaturesDependOnTheKey(t *testing.T) {
	a, _ := specsig.New([][]byte{key('a')}, nil)
	b, _ := specsig.New([][]byte{key('b'), key('a')}, nil)
	sa, sb := sealed(t, a), sealed(t, b)
	if sa.SpecHash != sb.SpecHash || sa.Signature == sb.Signature || len(sa.Signature) != 64 {
		t.Fatalf("hashes %s %s, signatures %s %s", sa.SpecHash, sb.SpecHash, sa.Signature, sb.Signature)
	}
	var nilRing *specsig.Keyring
	if nilRing.Signs() || nilRing.Revoked(sa.SpecHash) {
		t.Fatal("a nil keyring signs or revokes")
	}
}

type refs map[string]string

func (r refs) Resolve(_ context.Context, ref string) (string, error) {
	v, ok := r[ref]
	if !ok {
		return "", errors.New("secret reference " + ref + ": variable not set")
	}
	return v, nil
}

func TestResolveKeys(t *testing.T) {
	r := refs{"env:MANENT_SPEC_A": strings.Repeat("k", 32), "env:MANENT_SPEC_SHORT": "tooshort-secret-value"}
	keys, err := specsig.ResolveKeys(context.Background(), r, []string{"env:MANENT_SPEC_A"})
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %d, err %v", len(keys), err)
	}
	_, err = specsig.ResolveKeys(context.Background(), r, []string{"env:MANENT_SPEC_A", "env:MANENT_SPEC_SHORT"})
	if err == nil || !strings.Contains(err.Error(), "spec_key_refs[1]: the key env:MANENT_SPEC_SHORT has 21 bytes: at least 32") ||
		strings.Contains(err.Error(), "tooshort") {
		t.Fatalf("err = %v", err)
	}
	_, err = specsig.ResolveKeys(context.Background(), r, []string{"env:MANENT_SPEC_NONE"})
	if err == nil || !strings.Contains(err.Error(), "spec_key_refs[0]: secret reference env:MANENT_SPEC_NONE") {
		t.Fatalf("err = %v", err)
	}
	if _, err := specsig.New([][]byte{[]byte("short")}, nil); err == nil || strings.Contains(err.Error(), "short") {
		t.Fatalf("New with a short key: %v", err)
	}
}
