package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"manent.dev/manent/deploy"
)

// TestRetentionRunsDailyFromStart checks that a worker runs the day's
// retention when it starts, records it in the audit, and enqueues the
// next day's run.
func TestRetentionRunsDailyFromStart(t *testing.T) {
	e := newEnv(t)
	today := time.Now().UTC()
	res, err := e.eng.RetentionResult(today)
	if err != nil {
		// The test started just before midnight: the run at start was the
		// day before's.
		today = today.AddDate(0, 0, -1)
		if res, err = e.eng.RetentionResult(today); err != nil {
			t.Fatalf("retention result: %v", err)
		}
	}
	if !strings.HasPrefix(res, "removed 0 deploys") {
		t.Errorf("retention result = %q", res)
	}
	ok, err := e.eng.RetentionWorkflowExists(today.AddDate(0, 0, 1))
	if err != nil || !ok {
		t.Errorf("next day's retention enqueued = %v, %v; want true", ok, err)
	}
	page, err := e.store.ListAudit(e.ctx, deploy.AuditFilter{Action: "retention.run", First: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || page.Items[0].Actor != deploy.RetentionActor {
		t.Errorf("retention audit entries = %+v, want one by %s", page.Items, deploy.RetentionActor)
	}
}

// TestRetentionRemovedDependencyFails checks that a deploy waiting on a
// deploy the retention removes meanwhile ends DEPENDENCY_FAILED when it
// looks again, as for any dependency that no longer exists.
func TestRetentionRemovedDependencyFails(t *testing.T) {
	e := newEnv(t)
	gates := blockDeploys(e, "blocker")
	// old is neither in service nor the one before once two more went in.
	for _, id := range []string{"old", "mid", "new"} {
		e.submit(id, "app", "staging")
		e.waitState(id, deploy.StateSuccess)
	}
	e.submit("blocker", "app", "prod")
	select {
	case <-gates["blocker:started"]:
	case <-time.After(90 * time.Second):
		t.Fatal("blocker never started")
	}
	if _, err := e.eng.Submit(e.ctx, []byte(withAfter(descriptorFor("late", "app", "staging"), "old", "blocker")), deploy.SubmitOptions{}); err != nil {
		t.Fatalf("submit: %v", err)
	}
	e.waitState("late", deploy.StateWaitingDependency)

	conn, err := pgx.Connect(e.ctx, e.url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(e.ctx) }()
	if _, err := conn.Exec(e.ctx, `UPDATE manent.deployments SET finished_at = now() - interval '200 days' WHERE id = 'old'`); err != nil {
		t.Fatal(err)
	}
	p, err := e.store.Purge(e.ctx, deploy.RetentionActor, deploy.Retention{Deployments: 90 * 24 * time.Hour})
	if err != nil || len(p.Deployments) != 1 || p.Deployments[0] != "old" {
		t.Fatalf("Purge = %+v, %v; want old removed", p, err)
	}
	close(gates["blocker"])
	e.waitState("blocker", deploy.StateSuccess)
	d := e.waitState("late", deploy.StateDependencyFailed)
	if !strings.Contains(d.Error, "old no longer exists") {
		t.Errorf("error = %q, want the removed dependency named", d.Error)
	}
}
