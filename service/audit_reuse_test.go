package service_test

import (
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/authz"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/service"
)

// TestListAuditIDReuseLeaksAcrossTenants (rev13): the audit rows carried
// no resource; ListAudit resolved a target to the deploy that had that ID
// *then*. Once retention removed demo's deploy, a deploy of
// another tenant that takes the same ID (descriptor `id:`) makes demo's
// entries readable by that tenant.
func TestListAuditIDReuseLeaksAcrossTenants(t *testing.T) {
	ctx := t.Context()
	db, err := postgres.Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := postgres.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	store := postgres.NewStore(db)
	create := func(tenant, requester string) {
		d := deploy.Deployment{ID: "shared-id", Tenant: tenant, Application: "hello", Environment: "prod",
			State: deploy.StateEnqueued, Requester: requester}
		d.Descriptor = deploy.Descriptor{APIVersion: "manent/v1", ID: d.ID, Application: d.Application, Environment: d.Environment}
		if _, _, err := store.CreateDeployment(ctx, d, func(any) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	create("demo", "token:demo-ci")
	// What the retention does to an old finished deploy.
	if _, err := db.SQL().ExecContext(ctx, `DELETE FROM manent.deployments WHERE id = 'shared-id'`); err != nil {
		t.Fatal(err)
	}
	create("acme", "token:acme")
	az, err := authz.New("", "p, token:acme, acme, */*, deployment.read\n")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte("server: {default_tenant: demo}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.New(service.Options{Config: cfg, Store: store, Authorizer: az})
	if err != nil {
		t.Fatal(err)
	}
	page, err := svc.ListAudit(deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:acme"}), deploy.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range page.Items {
		if e.Actor == "token:demo-ci" {
			t.Errorf("tenant acme reads demo's audit entry %s by %s on %s: %v", e.Action, e.Actor, e.Target, e.Details)
		}
	}
}
