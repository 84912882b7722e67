package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"manent.dev/manent/deploy"
)

// auditActors lists the actors of the audit entries of action on target,
// oldest first.
func (e *env) auditActors(action, target string) []string {
	e.t.Helper()
	conn, err := pgx.Connect(e.ctx, e.url)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = conn.Close(e.ctx) }()
	rows, err := conn.Query(e.ctx, "SELECT actor FROM manent.audit WHERE action = $1 AND target = $2 ORDER BY id", action, target)
	if err != nil {
		e.t.Fatal(err)
	}
	actors, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		e.t.Fatal(err)
	}
	return actors
}

// A step's attempts show while its retries run, not only at its end.
func TestRetriesShowWhileTheyRun(t *testing.T) {
	e := newEnv(t)
	third := make(chan struct{})
	release := make(chan struct{})
	e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		if e.plugin.callCount(req.DeploymentID) < 3 {
			return errors.New("connection reset")
		}
		close(third)
		<-release
		return nil
	}
	e.submit("retrying", "app", "staging")
	<-third
	e.wait("retrying", func(d *deploy.Deployment) bool {
		s := step(d, "deploy")
		return s.State == deploy.StepRunning && s.Attempts == 3
	})
	close(release)
	d := e.waitState("retrying", deploy.StateSuccess)
	if s := step(d, "deploy"); s.Attempts != 3 {
		t.Fatalf("deploy step ended with %d attempts, want 3", s.Attempts)
	}
}

// auditTargets lists the targets of the audit entries of action, oldest
// first.
func (e *env) auditTargets(action string) []string {
	e.t.Helper()
	conn, err := pgx.Connect(e.ctx, e.url)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = conn.Close(e.ctx) }()
	rows, err := conn.Query(e.ctx, "SELECT target FROM manent.audit WHERE action = $1 ORDER BY id", action)
	if err != nil {
		e.t.Fatal(err)
	}
	targets, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		e.t.Fatal(err)
	}
	return targets
}

// Cancelling a release ends every deploy of it that never started
// CANCELLED, never DEPENDENCY_FAILED: each is cancelled before anything it
// waits for can end, whatever the order of the descriptor.
func TestCancelReleaseCancelsWhatNeverStarted(t *testing.T) {
	e := newReleaseEnv(t, "a", "b", "c", "d", "e")
	g := newGates(e, []string{"mixed.a"})
	// Written out of order: b follows a, c b, d c, and e b.
	members := []member{{name: "b", after: []string{"a"}}, {name: "a"}, {name: "d", after: []string{"c"}},
		{name: "c", after: []string{"b"}}, {name: "e", after: []string{"b"}}}
	e.submitRelease(releaseDoc("mixed", "stop", members...))
	<-g.started["mixed.a"]
	e.waitReleaseFor("mixed", func(r *deploy.Release) bool {
		for _, m := range r.Deploys {
			if m.Name != "a" && m.State != deploy.StateWaitingDependency {
				return false
			}
		}
		return true
	})
	if _, err := e.eng.CancelRelease(as(e, "token:admin"), "mixed"); err != nil {
		t.Fatal(err)
	}
	close(g.hold["mixed.a"])
	r := e.waitReleaseFor("mixed", func(r *deploy.Release) bool {
		for _, m := range r.Deploys {
			if !m.State.Terminal() {
				return false
			}
		}
		return true
	})
	for _, m := range r.Deploys {
		if m.State != deploy.StateCancelled {
			t.Errorf("%s ended %s (%s), want CANCELLED", m.Name, m.State, m.Error)
		}
	}
	order := e.auditTargets("deployment.cancel")
	for _, m := range members {
		for _, dep := range m.after {
			if slices.Index(order, "mixed."+m.name) > slices.Index(order, "mixed."+dep) {
				t.Errorf("cancels in the order %v: %s after %s, which it waits for", order, m.name, dep)
			}
		}
	}
	if d, _ := e.store.Get(e.ctx, "mixed.c"); d.CancelledBy != "token:admin" || d.Error != "cancelled by token:admin while WAITING_DEPENDENCY" {
		t.Errorf("c: cancelled by %q, error %q", d.CancelledBy, d.Error)
	}
}

// A deploy cancelled while it waits for its dependencies shows its wait as
// cancelled (not waiting forever), and the audit log records the end of the
// wait by whoever cancelled it.
func TestCancelEndsTheWaitForDependencies(t *testing.T) {
	e := newEnv(t)
	gates := blockDeploys(e, "w-dep")
	e.submit("w-dep", "app", "prod")
	<-gates["w-dep:started"]
	if _, err := e.eng.Submit(e.ctx, []byte(withAfter(descriptorFor("w-child", "app", "staging"), "w-dep")), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	d, err := e.eng.Cancel(as(e, "token:admin"), "w-child")
	if err != nil || d.State != deploy.StateCancelled {
		t.Fatalf("cancel = %+v, %v", d, err)
	}
	if st := deploy.NewStatus(d); st.After == nil || st.After.Status != "cancelled" || st.CancelledBy == nil || *st.CancelledBy != "token:admin" {
		t.Fatalf("status after %+v, cancelled_by %v", st.After, st.CancelledBy)
	}
	if by := e.auditActors("after.finish", "w-child"); len(by) != 1 || by[0] != "token:admin" {
		t.Fatalf("after.finish of w-child by %q, want once by token:admin", by)
	}
	close(gates["w-dep"])
	e.waitState("w-dep", deploy.StateSuccess)
	page, err := e.eng.List(e.ctx, deploy.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range page.Items {
		if d := &page.Items[i]; d.ID == "w-child" {
			if st := deploy.NewStatus(d); st.After.Status != "cancelled" || st.After.Dependencies[0].State != deploy.StateSuccess {
				t.Fatalf("listed after = %+v", st.After)
			}
		}
	}
}

// waitWorkflowEnded blocks until the DBOS workflow id has ended, read from
// DBOS's own record of it: what it would write, it has written.
func (e *env) waitWorkflowEnded(id string) {
	e.t.Helper()
	conn, err := pgx.Connect(e.ctx, e.url)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = conn.Close(e.ctx) }()
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var status string
		err := conn.QueryRow(ctx, "SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1", id).Scan(&status)
		if err == nil && status != "PENDING" && status != "ENQUEUED" {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			e.t.Fatalf("workflow %s has not ended (%s, %v)", id, status, err)
		}
	}
}

// A deploy cancelled before it ran ends CANCELLED at once, and its end is
// in the audit log: deployment.finish under the canceller, written with the
// cancel (no workflow finishes it later, and none writes it twice).
func TestCancelBeforeItRanWritesItsEnd(t *testing.T) {
	tests := []struct {
		name   string
		submit func(e *env, id string)
		before deploy.State
	}{
		{name: "awaiting approval", before: deploy.StateAwaitingApproval,
			submit: func(e *env, id string) { e.submit(id, "app", "prod") }},
		{name: "waiting for a dependency", before: deploy.StateWaitingDependency,
			submit: func(e *env, id string) {
				e.submit(id+"-dep", "app", "prod") // awaits an approval nobody gives
				doc := withAfter(descriptorFor(id, "app", "staging"), id+"-dep")
				if _, err := e.eng.Submit(e.ctx, []byte(doc), deploy.SubmitOptions{}); err != nil {
					e.t.Fatal(err)
				}
			}},
	}
	e := newEnvWith(t, envOptions{governor: prodNeeds(1, time.Hour)})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := fmt.Sprintf("cancel-early-%d", i)
			tt.submit(e, id)
			e.waitState(id, tt.before)
			d, err := e.eng.Cancel(as(e, "token:admin"), id)
			if err != nil || d.State != deploy.StateCancelled {
				t.Fatalf("cancel = %+v, %v", d, err)
			}
			if by := e.auditActors("deployment.finish", id); len(by) != 1 || by[0] != "token:admin" {
				t.Fatalf("deployment.finish at the cancel by %q, want once by token:admin", by)
			}
			e.waitWorkflowEnded(id + ":wait")
			if by := e.auditActors("deployment.finish", id); len(by) != 1 {
				t.Fatalf("deployment.finish once the wait ended by %q, want once", by)
			}
		})
	}
}

// A cancel requested while the last step before cleanup runs cannot stop
// anything: the deploy ends SUCCESS, and nothing says it was cancelled (no
// cancelled_by, deployment.finish under the requester), while the request
// itself stays in the audit log (deployment.cancel).
func TestLateCancelLeavesASuccess(t *testing.T) {
	e := newEnvWith(t, envOptions{steps: []string{
		"{name: artifacts, mode: mandatory}",
		"{name: deploy, mode: mandatory}",
	}})
	gates := blockDeploys(e, "late-cancel")
	e.submit("late-cancel", "app", "staging")
	<-gates["late-cancel:started"]
	d, err := e.eng.Cancel(as(e, "token:admin"), "late-cancel")
	if err != nil {
		t.Fatal(err)
	}
	if st := deploy.NewStatus(d); !d.CancelRequested || st.CancelledBy != nil {
		t.Errorf("while the request waits: cancel requested %v, cancelled_by %v; want true, none yet", d.CancelRequested, st.CancelledBy)
	}
	close(gates["late-cancel"])
	d = e.waitState("late-cancel", deploy.StateSuccess)
	if st := deploy.NewStatus(d); st.CancelledBy != nil {
		t.Errorf("a deploy that ended SUCCESS shows cancelled_by %q", *st.CancelledBy)
	}
	if by := e.auditActors("deployment.finish", "late-cancel"); len(by) != 1 || by[0] != "token:ci" {
		t.Errorf("deployment.finish by %q, want once by the requester token:ci", by)
	}
	if by := e.auditActors("deployment.cancel", "late-cancel"); len(by) != 1 || by[0] != "token:admin" {
		t.Errorf("deployment.cancel by %q, want once by token:admin", by)
	}
}

// A follower of a deploy sees each change it waits for through the
// deploy's step and state notifications alone, the log's aside: the
// starts and ends of operations leave theirs to the log writer, which
// sends them once they committed.
func TestFollowersAreNotifiedOfEachChange(t *testing.T) {
	e := newEnv(t)
	running := make(chan struct{})
	release := make(chan struct{})
	e.plugin.deploy = func(context.Context, deploy.PluginRequest) error {
		close(running)
		<-release
		return nil
	}
	ctx, cancel := context.WithTimeout(e.ctx, 90*time.Second)
	defer cancel()
	ch := e.events.Subscribe(ctx, "followed")
	// seen waits for a notification of a step or of the deploy after
	// which the deploy satisfies cond.
	seen := func(what string, cond func(*deploy.Deployment) bool) {
		t.Helper()
		for {
			select {
			case ev := <-ch:
				if ev.Kind == deploy.EventLog {
					continue
				}
				if d, err := e.store.Get(ctx, "followed"); err == nil && cond(d) {
					return
				}
			case <-ctx.Done():
				t.Fatalf("no notification of %s", what)
			}
		}
	}
	e.submit("followed", "app", "staging")
	<-running
	seen("the deploy step's start", func(d *deploy.Deployment) bool {
		return d.State == deploy.StatePending && step(d, "deploy").State == deploy.StepRunning
	})
	close(release)
	seen("the deploy step's end", func(d *deploy.Deployment) bool {
		return step(d, "deploy").State == deploy.StepSuccess
	})
	seen("the deploy's success", func(d *deploy.Deployment) bool { return d.State == deploy.StateSuccess })
}
