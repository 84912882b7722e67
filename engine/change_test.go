package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/itsm"
)

// fakeITSM is a real HTTP server on loopback that behaves like an ITSM's
// change API: it opens tickets, answers their state as the test decides,
// can fail with 5xx, and records closes.
type fakeITSM struct {
	mu       sync.Mutex
	state    string // answered by the status call
	failures int    // 503 answers still to give to the next calls
	opened   int
	closed   map[string]string
}

func (f *fakeITSM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failures > 0 {
		f.failures--
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	if r.Header.Get("Authorization") != "Bearer itsm-token" {
		http.Error(w, "no", http.StatusUnauthorized)
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/changes":
		f.opened++
		_ = json.NewEncoder(w).Encode(map[string]any{"id": fmt.Sprintf("t%d", f.opened), "number": fmt.Sprintf("CHG%03d", f.opened)})
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/changes/"):
		_ = json.NewEncoder(w).Encode(map[string]any{"approval": f.state})
	case r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/changes/"):
		var body map[string]string
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.closed[strings.TrimPrefix(r.URL.Path, "/changes/")] = body["outcome"]
		_, _ = w.Write([]byte(`{}`))
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeITSM) set(state string, failures int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.state, f.failures = state, failures
}

func (f *fakeITSM) closes() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for k, v := range f.closed {
		out[k] = v
	}
	return out
}

// connector adapts the real ITSM connector to the engine, as the server does.
type connector struct{ c *itsm.Connector }

func (a connector) Open(ctx context.Context, ch deploy.ChangeRequest) (deploy.ChangeTicket, error) {
	t, err := a.c.Open(ctx, itsm.Change{DeploymentID: ch.DeploymentID, Application: ch.Application,
		Environment: ch.Environment, Version: ch.Version, Requester: ch.Requester, Description: ch.Description})
	return deploy.ChangeTicket{ID: t.ID, Number: t.Number}, err
}

func (a connector) Status(ctx context.Context, id string) (deploy.ChangeState, error) {
	s, err := a.c.Status(ctx, id)
	return deploy.ChangeState(s), err
}

func (a connector) Close(ctx context.Context, deploymentID, id, outcome string) error {
	return a.c.Close(ctx, deploymentID, id, outcome)
}

func newChangeEnv(t *testing.T) (*env, *fakeITSM) {
	t.Helper()
	return newChangeEnvFor(t, deploy.Decision{Rule: "prod-change", Requires: []string{"change"},
		Change: &deploy.ChangeRequirement{Connector: "itsm"}})
}

// newChangeEnvFor is newChangeEnv where prod's deploys get the decision dec.
func newChangeEnvFor(t *testing.T, dec deploy.Decision) (*env, *fakeITSM) {
	t.Helper()
	f := &fakeITSM{state: "requested", closed: map[string]string{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg := itsm.Config{
		BaseURL: srv.URL, Timeout: 5 * time.Second,
		Auth: itsm.Auth{Type: itsm.AuthBearer, Secret: "env:MANENT_SECRET_ITSM"},
		Open: itsm.OpenCall{Method: http.MethodPost, Path: "/changes",
			Body: `{"summary": "{{ .Application }} {{ .Version }} to {{ .Environment }}"}`, IDPath: "$.id", NumberPath: "$.number"},
		Status: itsm.StatusCall{Method: http.MethodGet, Path: "/changes/{{ .TicketID }}", StatePath: "$.approval",
			ApprovedValues: []string{"approved"}, RejectedValues: []string{"rejected"}},
		Close: itsm.CloseCall{Method: http.MethodPatch, Path: "/changes/{{ .TicketID }}", Body: `{"outcome": "{{ .Outcome }}"}`},
	}
	cfg.SetDefaults()
	conn, err := itsm.New(cfg, func(_ context.Context, ref string) (string, error) {
		return "itsm-token", nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	gov := &fakeGovernor{decide: func(in deploy.GovernanceInput) (deploy.Decision, error) {
		if in.Environment != "prod" {
			return deploy.Decision{}, nil
		}
		return dec, nil
	}}
	e := newEnvWith(t, envOptions{governor: gov, changes: map[string]deploy.ChangeConnector{"itsm": connector{conn}},
		engineYAML: "governance: {change_poll_interval: 50ms}"})
	return e, f
}

func TestChangeApprovedInTheITSM(t *testing.T) {
	e, itsmSrv := newChangeEnv(t)
	// The first calls meet a busy ITSM: they are retried.
	itsmSrv.set("requested", 2)
	d := e.submit("c-approved", "app", "prod")
	if d.State != deploy.StateAwaitingApproval {
		t.Fatalf("state %s, want AWAITING_APPROVAL", d.State)
	}
	d = e.wait("c-approved", func(d *deploy.Deployment) bool { return step(d, "change:open").State == deploy.StepSuccess })
	if s := step(d, "change:open"); s.Output["ticket"] != "t1" || s.Output["number"] != "CHG001" {
		t.Fatalf("change:open = %+v", s)
	}
	if n := e.plugin.callCount("c-approved"); n != 0 {
		t.Fatalf("ran before the change was approved")
	}
	itsmSrv.set("approved", 0)
	d = e.waitState("c-approved", deploy.StateSuccess)
	if s := step(d, "change:close"); s.State != deploy.StepSuccess || s.Output["outcome"] != "success" {
		t.Fatalf("change:close = %+v", s)
	}
	if got := itsmSrv.closes(); got["t1"] != "success" {
		t.Fatalf("ITSM closes = %v", got)
	}
}

func TestChangeRejectedInTheITSM(t *testing.T) {
	e, itsmSrv := newChangeEnv(t)
	e.submit("c-rejected", "app", "prod")
	e.wait("c-rejected", func(d *deploy.Deployment) bool { return step(d, "change:open").State == deploy.StepSuccess })
	itsmSrv.set("rejected", 0)
	d := e.waitState("c-rejected", deploy.StateRejected)
	if !strings.Contains(d.Error, "CHG001 rejected in the ITSM") {
		t.Fatalf("error = %q", d.Error)
	}
	if n := e.plugin.callCount("c-rejected"); n != 0 {
		t.Fatalf("a rejected change ran %d times", n)
	}
}

func TestChangeClosedWithTheOutcomeOnError(t *testing.T) {
	e, itsmSrv := newChangeEnv(t)
	itsmSrv.set("approved", 0)
	e.plugin.deploy = func(context.Context, deploy.PluginRequest) error { return deploy.Permanentf("broken") }
	e.submit("c-error", "app", "prod")
	d := e.waitState("c-error", deploy.StateError)
	if s := step(d, "change:close"); s.State != deploy.StepSuccess || s.Output["outcome"] != "error" {
		t.Fatalf("change:close = %+v", s)
	}
	if got := itsmSrv.closes(); got["t1"] != "error" {
		t.Fatalf("ITSM closes = %v", got)
	}
}

// A rejection answers with the state it produced: the deploy is REJECTED
// when Reject returns, what waits on it looks again at once, and the change
// ticket opened for it is closed.
func TestRejectionAnswersWithItsEnd(t *testing.T) {
	e, itsmSrv := newChangeEnvFor(t, deploy.Decision{Rule: "prod-gated", Requires: []string{"approvals", "change"},
		Approvals: &deploy.ApprovalRequirement{Count: 2, Expiry: time.Hour}, Change: &deploy.ChangeRequirement{Connector: "itsm"}})
	e.submit("r-prod", "app", "prod")
	e.wait("r-prod", func(d *deploy.Deployment) bool { return step(d, "change:open").State == deploy.StepSuccess })
	if _, err := e.eng.Submit(e.ctx, []byte(withAfter(descriptorFor("r-next", "app", "staging"), "r-prod")), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	d, err := e.eng.Reject(as(e, "token:ops1"), "r-prod", "not during the sale")
	if err != nil {
		t.Fatal(err)
	}
	if d.State != deploy.StateRejected || d.Error != "rejected by token:ops1: not during the sale" || d.FinishedAt == nil {
		t.Fatalf("Reject answered %s (%q, finished %v), want REJECTED", d.State, d.Error, d.FinishedAt)
	}
	if st := deploy.NewStatus(d); st.Approval == nil || st.Approval.Status != "rejected" {
		t.Fatalf("approval section %+v, want rejected", st.Approval)
	}
	next := e.waitState("r-next", deploy.StateDependencyFailed)
	if !strings.Contains(next.Error, "r-prod ended REJECTED") {
		t.Fatalf("dependent error = %q", next.Error)
	}
	d = e.wait("r-prod", func(d *deploy.Deployment) bool { return step(d, "change:close").State == deploy.StepSuccess })
	if got := itsmSrv.closes(); got["t1"] != "cancelled" {
		t.Fatalf("ITSM closes = %v, want t1 cancelled", got)
	}
	if d.State != deploy.StateRejected || e.plugin.callCount("r-prod") != 0 {
		t.Fatalf("after its wait ended: %s, %d plugin calls", d.State, e.plugin.callCount("r-prod"))
	}
	if by := e.auditActors("deployment.finish", "r-prod"); len(by) != 1 || by[0] != "token:ops1" {
		t.Fatalf("deployment.finish of r-prod by %q, want once by token:ops1", by)
	}
}
