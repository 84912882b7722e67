package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

func TestCallbackPolicy(t *testing.T) {
	policy := Callbacks{Allowed: []string{"https://hooks.example.com", "https://ci.example.com/hooks/", "http://127.0.0.1:"}, AllowHTTP: true}
	tests := []struct {
		url  string
		want string
	}{
		{"https://hooks.example.com", ""},
		{"https://hooks.example.com/deploys?token=x", ""},
		{"https://hooks.example.com:8443/x", ""},
		{"https://hooks.example.com.evil.net/x", "is not allowed by manent.yml's callbacks.allowed"},
		{"https://hooks.example.comx/", "is not allowed by manent.yml's callbacks.allowed"},
		{"https://ci.example.com/hooks/a", ""},
		{"https://ci.example.com/hooksx", "is not allowed by manent.yml's callbacks.allowed"},
		{"http://127.0.0.1:9000/x", ""},
		{"http://127.0.0.1:/x", "is not allowed by manent.yml's callbacks.allowed"},
		{"http://127.0.0.1.evil.net/", "is not allowed by manent.yml's callbacks.allowed"},
		{"http://169.254.169.254/latest/meta-data", "names a link-local or metadata address, which manent never calls"},
		{"https://[fd00:ec2::254]/", "names a link-local or metadata address, which manent never calls"},
	}
	for _, tt := range tests {
		if got := policy.CallbackProblem(tt.url); got != tt.want {
			t.Errorf("%s: %q, expected %q", tt.url, got, tt.want)
		}
	}
	httpsOnly := Callbacks{Allowed: []string{"http://127.0.0.1:"}}
	if got := httpsOnly.CallbackProblem("http://127.0.0.1:9000/"); got != "must be an https:// URL (manent.yml callbacks.allow_http is off)" {
		t.Errorf("http without allow_http: %q", got)
	}
	if got := (Callbacks{}).CallbackProblem("https://hooks.example.com/"); got != "is not allowed: manent.yml allows no callbacks (callbacks.allowed)" {
		t.Errorf("no policy: %q", got)
	}
}

func TestCallbacksSection(t *testing.T) {
	t.Setenv("MANENT_SECRET_CB", "whsec_dGVzdA==")
	c, err := Parse([]byte("callbacks:\n  allowed: [\"https://hooks.example.com/\"]\n  signing_key_refs: [env:MANENT_SECRET_CB]\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if c.Callbacks.RetryWindow != 24*time.Hour || c.Callbacks.Timeout != 10*time.Second || c.Callbacks.Concurrency != 8 {
		t.Errorf("defaults: %+v", c.Callbacks)
	}
	d := &deploy.Descriptor{Callbacks: []deploy.Callback{{URL: "https://hooks.example.com/a"}, {URL: "https://elsewhere.example.com/"}}}
	want := []deploy.FieldError{{Path: "callbacks[1].url", Message: "is not allowed by manent.yml's callbacks.allowed"}}
	if got := c.CheckCallbacks(d); !reflect.DeepEqual(got, want) {
		t.Errorf("check: %+v", got)
	}
	_, err = Parse([]byte("callbacks:\n  allowed: [\"http://127.0.0.1:\", \"ftp://x\"]\n  signing_key_refs: [env:HOME]\n  retry_window: 1ms\n  timeout: 5m\n  colour: blue\n"), t.TempDir())
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v", err)
	}
	var got []string
	for _, f := range ce.Fields {
		got = append(got, f.String())
	}
	wantErrs := []string{
		"callbacks.colour: unknown field",
		"callbacks.allowed[0]: is an http:// prefix: set callbacks.allow_http to allow plain HTTP",
		"callbacks.allowed[1]: must be the start of an http:// or https:// URL, with its host (https://hooks.example.com/)",
		"callbacks.signing_key_refs[0]: env: variables must start with MANENT_SECRET_ (secrets.env_prefix)",
		"callbacks.retry_window: must be between 1s and 168h",
		"callbacks.timeout: must be between 100ms and 1m",
	}
	if !reflect.DeepEqual(got, wantErrs) {
		t.Errorf("errors\n got      %q\n expected %q", got, wantErrs)
	}
}

// The callbacks' per-tenant limit and bound of step events: their
// defaults, and the values refused.
func TestCallbackLimits(t *testing.T) {
	base := "callbacks:\n  allowed: [\"https://hooks.example.com/\"]\n  signing_key_refs: [env:MANENT_SECRET_CB]\n"
	c, err := Parse([]byte(base), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if c.Callbacks.ConcurrencyPerTenant != 2 || c.Callbacks.MaxStepEvents != 500 {
		t.Errorf("defaults %+v", c.Callbacks)
	}
	c, err = Parse([]byte(base+"  concurrency: 1\n"), t.TempDir())
	if err != nil || c.Callbacks.ConcurrencyPerTenant != 1 {
		t.Errorf("concurrency 1: per tenant %d, %v", c.Callbacks.ConcurrencyPerTenant, err)
	}
	for extra, want := range map[string]string{
		"  concurrency: 2\n  concurrency_per_tenant: 3\n": "callbacks.concurrency_per_tenant: must be between 1 and callbacks.concurrency",
		"  concurrency_per_tenant: -1\n":                  "callbacks.concurrency_per_tenant: must be between 1 and callbacks.concurrency",
		"  max_step_events: -1\n":                         "callbacks.max_step_events: must be between 1 and 100000",
	} {
		if _, err := Parse([]byte(base+extra), t.TempDir()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", extra, err, want)
		}
	}
}
