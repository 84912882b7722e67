package custom

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/steps"
)

// TestDryRun: a step without a dry_run section is skipped in a dry run,
// and says so; with one, the dry run's request is sent with only the dry
// run's own secrets, and .DryRun is true.
func TestDryRun(t *testing.T) {
	var got atomic.Pointer[http.Request]
	f := newFixture(t, func(w http.ResponseWriter, r *http.Request) { got.Store(r) })
	spec := f.spec("/purge")
	spec.Run.Auth = &deploy.HTTPAuth{Type: "bearer", Secret: "cdn-token"}

	res, err := httpKind{f.kinds}.DryRun(context.Background(), f.context(spec))
	if err != nil || res.Output["dry_run"] != "skipped" || res.Output["reason"] != "no dry_run section" || got.Load() != nil {
		t.Fatalf("without dry_run: %v %v, request %v", res.Output, err, got.Load())
	}
	if !strings.Contains(f.log(), "dry run: skipped, the step has no dry_run section") {
		t.Errorf("log:\n%s", f.log())
	}
	if e := f.audit.all(); len(e) != 1 || e[0].Details["outcome"] != OutcomeSkipped || e[0].Details["dry_run"] != true {
		t.Errorf("audit %+v", e)
	}

	spec.DryRun = &deploy.CustomRun{URL: f.srv.URL + "/plan", Secrets: []string{"cdn-read"},
		Auth: &deploy.HTTPAuth{Type: "bearer", Secret: "cdn-read"}, Headers: map[string]string{"X-Dry-Run": "{{ .DryRun }}"}}
	if _, err := (httpKind{f.kinds}).DryRun(context.Background(), f.context(spec)); err != nil {
		t.Fatal(err)
	}
	r := got.Load()
	if r == nil || r.URL.Path != "/plan" || r.Header.Get("Authorization") != "Bearer "+readValue || r.Header.Get("X-Dry-Run") != "true" {
		t.Fatalf("dry run's request %+v", r)
	}
	if asked := f.secrets.askedFor(); slices.Contains(asked, "cdn-token") {
		t.Fatalf("the dry run resolved the run's secret: %v", asked)
	}

	// A dry run that names the run's secret does not get it.
	spec.DryRun.Auth.Secret = "cdn-token"
	got.Store(nil)
	_, err = httpKind{f.kinds}.DryRun(context.Background(), f.context(spec))
	if err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), "not one of the step's dry_run.secrets") || got.Load() != nil {
		t.Fatalf("the run's secret in a dry run: %v", err)
	}
}

// checks is a fake of the service's checks: only the freeze is asked.
type checks struct {
	steps.Checks
	freeze *deploy.Freeze
}

func (c checks) FreezeInForce(context.Context, deploy.Identity, deploy.Descriptor, []deploy.Target) (*deploy.Freeze, error) {
	return c.freeze, nil
}

// TestCommandDryRunSkippedInAFreeze: during a freeze a command step's dry
// run is skipped (dry_run: skipped, reason: freeze), unless the
// descriptor's freezeOverride is accepted; its run is governance's.
func TestCommandDryRunSkippedInAFreeze(t *testing.T) {
	f := newFixture(t, nil)
	spec := &deploy.CustomSpec{Name: "db-migrate", Type: deploy.StepTypeCommand, Timeout: time.Minute,
		SSH: &deploy.CustomSSH{PasswordSecret: "api-pass"},
		Run: deploy.CustomRun{Command: []string{"/opt/migrate", "up"}}, DryRun: &deploy.CustomRun{Command: []string{"/opt/migrate", "plan"}}}
	freeze := &deploy.Freeze{Window: "year-end", Until: time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC)}
	c := f.context(spec)
	c.Env.Checks = checks{freeze: freeze}
	res, err := commandKind{f.kinds}.DryRun(context.Background(), c)
	if err != nil || res.Output["dry_run"] != "skipped" || res.Output["reason"] != "freeze" {
		t.Fatalf("in a freeze: %v %v", res.Output, err)
	}
	if !strings.Contains(f.log(), "dry_run: skipped, reason: freeze (window year-end in force until 2027-01-02T00:00:00Z") {
		t.Errorf("log:\n%s", f.log())
	}
	if e := f.audit.all(); len(e) != 1 || e[0].Details["outcome"] != OutcomeSkipped || e[0].Details["reason"] != "freeze" {
		t.Errorf("audit %+v", e)
	}
	overridden := *freeze
	overridden.Overridden = true
	for _, ch := range []checks{{freeze: &overridden}, {}} {
		c := f.context(spec)
		c.Env.Checks = ch
		if res, _ := (commandKind{f.kinds}).DryRun(context.Background(), c); res.Output["reason"] == "freeze" {
			t.Errorf("freeze %+v: skipped", ch.freeze)
		}
	}
}

// TestDryRunListingTheRunsSecret: a stored plan whose dry_run.secrets
// lists a secret of the run (refused at start-up since; a plan stored
// before may hold one) is refused before the secret is resolved or
// anything sent.
func TestDryRunListingTheRunsSecret(t *testing.T) {
	var hit atomic.Bool
	f := newFixture(t, func(http.ResponseWriter, *http.Request) { hit.Store(true) })
	spec := f.spec("/purge")
	spec.DryRun = &deploy.CustomRun{URL: f.srv.URL + "/plan", Secrets: []string{"cdn-read", "cdn-token"},
		Auth: &deploy.HTTPAuth{Type: "bearer", Secret: "cdn-token"}}
	_, err := httpKind{f.kinds}.DryRun(context.Background(), f.context(spec))
	if err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), "dry_run.secrets lists cdn-token, a secret of the run") {
		t.Fatalf("dry run: %v, want a permanent refusal", err)
	}
	if hit.Load() || len(f.secrets.askedFor()) != 0 {
		t.Fatalf("sent %v, resolved %v", hit.Load(), f.secrets.askedFor())
	}
}
