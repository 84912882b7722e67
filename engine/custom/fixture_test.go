package custom

import (
	"context"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/steps"
	"manent.dev/manent/internal/safehttp"
	"manent.dev/manent/internal/specsig"
)

// secretStore is a secret provider of the test: test:NAME, and the names
// each deploy's steps asked for.
type secretStore struct {
	mu     sync.Mutex
	values map[string]string
	asked  []string
}

func (*secretStore) Scheme() string { return "test" }

func (s *secretStore) Resolve(_ context.Context, ref string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := strings.TrimPrefix(ref, "test:")
	s.asked = append(s.asked, name)
	v, ok := s.values[name]
	if !ok {
		return "", deploy.Permanentf("no secret %s", name)
	}
	return v, nil
}

func (s *secretStore) askedFor() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.asked...)
}

// auditLog keeps the entries the kinds append.
type auditLog struct {
	mu      sync.Mutex
	entries []deploy.AuditEntry
}

func (a *auditLog) AppendAudit(_ context.Context, e deploy.AuditEntry) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.entries = append(a.entries, e)
	return nil
}

func (a *auditLog) all() []deploy.AuditEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]deploy.AuditEntry(nil), a.entries...)
}

// fixture is a TLS server, a client trusting its certificate, and the
// context of one operation of a custom step against it.
type fixture struct {
	t       *testing.T
	srv     *httptest.Server
	kinds   *kinds
	audit   *auditLog
	secrets *secretStore
	cfg     *config.Config

	mu    sync.Mutex
	lines []string
}

// The secrets of the fixture: long enough to be masked.
const (
	tokenValue   = "tok-3f9a0c1e5b7d42a8"
	readValue    = "ro-7c1e5b7d42a8a1c3"
	passwordText = "pw-a8a1c3e5f7091b2d"
)

func newFixture(t *testing.T, handler http.HandlerFunc) *fixture {
	t.Helper()
	srv := httptest.NewTLSServer(handler)
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	f := &fixture{t: t, srv: srv, audit: &auditLog{}, cfg: config.Defaults(t.TempDir()),
		secrets: &secretStore{values: map[string]string{"cdn-token": tokenValue, "cdn-read": readValue, "api-pass": passwordText}}}
	f.kinds = &kinds{o: Options{Audit: f.audit, Log: slog.Default(),
		HTTP: safehttp.New(safehttp.Options{Timeout: 30 * time.Second, RootCAs: pool})}}
	return f
}

// context is the operation of spec's run in deploy d-1, version 1.0.0.
func (f *fixture) context(spec *deploy.CustomSpec) *steps.Context {
	return &steps.Context{
		Env: &steps.Env{Config: f.cfg, Secrets: map[string]deploy.SecretProvider{"test": f.secrets}},
		Job: deploy.Job{ID: "d-1", Requester: "token:ci"},
		Step: deploy.PlannedStep{Name: spec.Name, Type: spec.Type, Timeout: spec.Timeout, MaxRetries: spec.MaxRetries, Spec: spec,
			SpecHash: must(specsig.Hash(spec))},
		Key: deploy.StepKey{Step: spec.Name, Kind: deploy.KindRun},
		Effective: deploy.Effective{Tenant: "demo", Application: "shop", Environment: "prod",
			Artifact: deploy.Artifact{Name: "shop", Version: "1.0.0"},
			Targets:  []deploy.Target{{Host: "web-1"}, {Host: "web-2"}},
			Secrets: []deploy.SecretRef{{Name: "cdn-token", Ref: "test:cdn-token"}, {Name: "cdn-read", Ref: "test:cdn-read"},
				{Name: "api-pass", Ref: "test:api-pass"}, {Name: "short", Ref: "test:short"}},
			StepParams: map[string]map[string]string{spec.Name: {"zone": "z1"}}},
		Outputs: map[string]map[string]string{},
		Attempt: 1,
		Log: func(level, format string, args ...any) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.lines = append(f.lines, level+" "+fmt.Sprintf(format, args...))
		},
	}
}

func (f *fixture) log() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.lines, "\n")
}

// spec is an HTTP step posting to the fixture's server at path.
func (f *fixture) spec(path string) *deploy.CustomSpec {
	return &deploy.CustomSpec{Name: "cdn-purge", Type: deploy.StepTypeHTTP, Timeout: time.Minute,
		Secrets: []string{"cdn-token"},
		Params:  map[string]deploy.ParamSpec{"zone": {Pattern: "[a-z0-9]+", Required: true}},
		Run:     deploy.CustomRun{URL: f.srv.URL + path}}
}

func (f *fixture) run(spec *deploy.CustomSpec) (steps.Result, error) {
	return httpKind{f.kinds}.Run(context.Background(), f.context(spec))
}
