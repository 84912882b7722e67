package postgres_test

import (
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/dora"
)

// TestOutcomesIDReuseKeepsOldScope (rev13, FAILS on a33e1c1): a DORA fact
// outlives its deploy; a later deploy of another tenant with the same ID
// (descriptor `id:`) rewrites the fact through ON CONFLICT, which keeps
// tenant, application and environment: tenant acme's deploy is counted in
// demo's metrics (readable there), demo's own outcome is gone.
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
	for _, o := range out {
		if o.ID == "reused" && o.Tenant != "acme" {
			t.Errorf("acme's deploy is counted as %s/%s/%s's (state %s)", o.Tenant, o.Application, o.Environment, o.State)
		}
	}
}
