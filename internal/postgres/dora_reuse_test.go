package postgres_test

import (
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/dora"
)

// TestOutcomesIDReuseKeepsOldScope a DORA fact outlives its
// deploy; a later deploy of another tenant with the same ID (a deploy
// removed before IDs were retired, or by hand) must not rewrite it through
// ON CONFLICT: demo's fact keeps its scope and its outcome, and acme's
// deploy is never counted in demo's metrics.
func TestOutcomesIDReuseKeepsOldScope(t *testing.T) {
	f := newFixture(t)
	at := time.Now().UTC().Add(-time.Hour)
	d := deployment("reused", "prod")
	f.run(d)
	f.finish(deploy.Outcome{ID: "reused", State: deploy.StateSuccess, FinishedAt: at, InService: true})
	// What the retention does to an old finished deploy (inventory rows aside).
	for _, q := range []string{`DELETE FROM manent.inventory WHERE deployment_id = 'reused'`,
		`DELETE FROM manent.inventory_history WHERE deployment_id = 'reused'`,
		`DELETE FROM manent.deployments WHERE id = 'reused'`} {
		if _, err := f.db.SQL().ExecContext(f.ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	d = deployment("reused", "prod")
	d.Tenant, d.Effective.Tenant = "acme", "acme"
	f.run(d)
	f.finish(deploy.Outcome{ID: "reused", State: deploy.StateError, Error: "x", FailedStep: "deploy", FinishedAt: at.Add(time.Minute)})
	out, err := f.store.Outcomes(f.ctx, dora.Filter{Since: at.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var facts int
	for _, o := range out {
		if o.ID != "reused" {
			continue
		}
		facts++
		if o.Tenant != "demo" || o.Application != d.Application || o.Environment != "prod" || o.State != string(deploy.StateSuccess) {
			t.Errorf("demo's fact became %s/%s/%s %s", o.Tenant, o.Application, o.Environment, o.State)
		}
	}
	if facts != 1 {
		t.Errorf("%d facts of reused, want demo's one", facts)
	}
}
