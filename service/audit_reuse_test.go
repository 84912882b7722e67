package service_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/postgres"
)

// TestListAuditIDReuseLeaksAcrossTenants the audit rows carried
// no resource; ListAudit resolved a target to the deploy that had that ID
// *then*. Once retention removed demo's deploy, a deploy of
// another tenant that takes the same ID (descriptor `id:`) makes demo's
// entries readable by that tenant.
func TestListAuditIDReuseLeaksAcrossTenants(t *testing.T) {
	ctx := t.Context()
	db := migratedDB(t)
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
	svc := demoService(t, store, "p, token:acme, acme, */*, deployment.read\n")
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

// TestListAuditEntriesStayWithTheirTenant: an entry belongs to the
// resource it was written about, whoever takes its deploy ID or schedule
// name later; a deploy that retention removed keeps its entries readable
// by its own tenant's readers (and findable by its filters), by no other
// tenant; the retention's own entry is about nothing, for global admins.
func TestListAuditEntriesStayWithTheirTenant(t *testing.T) {
	ctx := t.Context()
	db := migratedDB(t)
	store := postgres.NewStore(db)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.SQL().ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	create := func(id, tenant, requester string) {
		t.Helper()
		d := deploy.Deployment{ID: id, Tenant: tenant, Application: "hello", Environment: "prod",
			State: deploy.StateEnqueued, Requester: requester}
		d.Descriptor = deploy.Descriptor{APIVersion: "manent/v1", ID: d.ID, Application: d.Application, Environment: d.Environment}
		if _, _, err := store.CreateDeployment(ctx, d, func(any) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	schedule := func(tenant, requester string) {
		t.Helper()
		sc := deploy.RecurringSchedule{Name: "nightly", Tenant: tenant, Application: "hello", Environment: "prod",
			Cron: "0 3 * * *", TimeZone: "UTC", Requester: requester, Template: []byte(`{}`)}
		if _, _, err := store.UpsertSchedule(ctx, sc, func(any, int) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	svc := demoService(t, store, `p, token:demo-ci, demo, */*, deployment.read
p, token:acme, acme, */*, deployment.read
p, token:root, *, *, admin
`)
	// demo's deploy "shared-id", removed by hand, then taken by acme.
	create("shared-id", "demo", "token:demo-ci")
	exec(`DELETE FROM manent.deployments WHERE id = 'shared-id'`)
	create("shared-id", "acme", "token:acme")
	// demo's schedule "nightly", deleted, then a schedule of acme under its name.
	schedule("demo", "token:demo-ci")
	// As service.DeleteSchedule does (its engine is not needed here).
	if err := store.DeleteSchedule(ctx, "nightly"); err != nil {
		t.Fatal(err)
	}
	if err := store.AppendAudit(ctx, deploy.AuditEntry{Time: time.Now().UTC(), Actor: "token:demo-ci",
		Action: "schedule.delete", Target: "nightly"}); err != nil {
		t.Fatal(err)
	}
	schedule("acme", "token:acme")
	// demo's deploy "old-1", finished 200 days ago, removed by the retention.
	create("old-1", "demo", "token:demo-ci")
	exec(`UPDATE manent.deployments SET state = 'PENDING' WHERE id = 'old-1'`)
	exec(`UPDATE manent.deployments SET state = 'SUCCESS' WHERE id = 'old-1'`)
	exec(`UPDATE manent.deployments SET finished_at = now() - interval '200 days' WHERE id = 'old-1'`)
	purged, err := store.Purge(ctx, "system:retention", deploy.Retention{Deployments: 90 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(purged.Deployments, []string{"old-1"}) {
		t.Fatalf("retention removed %v, want old-1", purged.Deployments)
	}

	tests := []struct {
		name   string
		who    string
		filter deploy.AuditFilter
		want   []string // action target, newest first
	}{
		{"demo's reader reads demo's entries, those of removed deploys and schedules too", "token:demo-ci", deploy.AuditFilter{},
			[]string{"deployment.submit old-1", "schedule.delete nightly", "schedule.create nightly", "deployment.submit shared-id"}},
		{"acme's reader reads only acme's, under the reused ID and name", "token:acme", deploy.AuditFilter{},
			[]string{"schedule.create nightly", "deployment.submit shared-id"}},
		{"a removed deploy is found by its tenant filter", "token:demo-ci",
			deploy.AuditFilter{Tenant: "demo", Application: "hello", Environment: "prod", Action: "deployment.*"},
			[]string{"deployment.submit old-1", "deployment.submit shared-id"}},
		{"another tenant naming demo in the filter reads nothing", "token:acme", deploy.AuditFilter{Tenant: "demo"}, []string{}},
		{"a reused schedule name's history is split by tenant", "token:root", deploy.AuditFilter{Tenant: "acme", Action: "schedule.*"},
			[]string{"schedule.create nightly"}},
		{"the retention's entry is about nothing: global admins only", "token:root", deploy.AuditFilter{Action: "retention.*"},
			[]string{"retention.run "}},
		{"a tenant's reader never reads the retention's entry", "token:demo-ci", deploy.AuditFilter{Action: "retention.*"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := svc.ListAudit(deploy.WithIdentity(ctx, deploy.Identity{Subject: tt.who}), tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, e := range page.Items {
				got = append(got, e.Action+" "+e.Target)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("entries %q, want %q", got, tt.want)
			}
		})
	}
	// The ID of the removed deploy is retired: no tenant takes it.
	d := deploy.Deployment{ID: "old-1", Tenant: "acme", Application: "hello", Environment: "prod",
		State: deploy.StateEnqueued, Requester: "token:acme"}
	d.Descriptor = deploy.Descriptor{APIVersion: "manent/v1", ID: d.ID, Application: d.Application, Environment: d.Environment}
	_, _, err = store.CreateDeployment(ctx, d, func(any) error { return nil })
	if de := (*deploy.Error)(nil); !errors.As(err, &de) || de.Code != deploy.ECONFLICT || !strings.Contains(de.Error(), "was used before") {
		t.Errorf("a deploy under a retired ID: %v, want CONFLICT was used before", err)
	}
}
