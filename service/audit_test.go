package service_test

import (
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/postgres"
)

// TestListAuditReadsWhatTheReaderMayRead: an entry is read with
// deployment.read on its deploy, an entry about no environment only by an
// admin of every tenant; the rest looks like nothing.
func TestListAuditReadsWhatTheReaderMayRead(t *testing.T) {
	ctx := t.Context()
	db := migratedDB(t)
	store := postgres.NewStore(db)
	for _, d := range []deploy.Deployment{
		{ID: "hello-1", Tenant: "demo", Application: "hello", Environment: "prod"},
		{ID: "shop-1", Tenant: "demo", Application: "shop", Environment: "prod"},
		{ID: "acme-1", Tenant: "acme", Application: "hello", Environment: "prod"},
	} {
		d.State, d.Requester = deploy.StateEnqueued, "token:ci"
		d.Descriptor = deploy.Descriptor{APIVersion: "manent/v1", ID: d.ID, Application: d.Application, Environment: d.Environment}
		if _, _, err := store.CreateDeployment(ctx, d, func(any) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.AppendAudit(ctx, deploy.AuditEntry{Time: time.Now().UTC(), Actor: "system", Action: "config.reload"}); err != nil {
		t.Fatal(err)
	}
	svc := demoService(t, store, `p, token:ci, demo, hello/*, deployment.read
p, token:acme, acme, */*, deployment.read
p, token:demo-admin, demo, *, admin
p, token:root, *, *, admin
p, token:nobody, demo, other/*, deployment.read
`)
	as := func(subject string) deploy.Identity { return deploy.Identity{Subject: subject} }
	tests := []struct {
		name   string
		who    deploy.Identity
		filter deploy.AuditFilter
		want   []string
	}{
		{"read on hello", as("token:ci"), deploy.AuditFilter{}, []string{"hello-1"}},
		{"another tenant", as("token:acme"), deploy.AuditFilter{}, []string{"acme-1"}},
		{"another tenant named in the filter", as("token:acme"), deploy.AuditFilter{Tenant: "demo"}, []string{}},
		{"read on another application", as("token:nobody"), deploy.AuditFilter{}, []string{}},
		{"an admin of one tenant", as("token:demo-admin"), deploy.AuditFilter{}, []string{"shop-1", "hello-1"}},
		{"an admin of every tenant", as("token:root"), deploy.AuditFilter{}, []string{"", "acme-1", "shop-1", "hello-1"}},
		{"an admin of every tenant, filtered", as("token:root"), deploy.AuditFilter{Tenant: "acme"}, []string{"acme-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := svc.ListAudit(deploy.WithIdentity(ctx, tt.who), tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, e := range page.Items {
				got = append(got, e.Target)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ListAudit as %s = %v, want %v", tt.who.Subject, got, tt.want)
			}
		})
	}

	now := time.Now()
	for _, tt := range []struct {
		name   string
		who    deploy.Identity
		filter deploy.AuditFilter
		code   deploy.Code
	}{
		{"anonymous", deploy.Identity{}, deploy.AuditFilter{}, deploy.EUNAUTHENTICATED},
		{"since not before until", as("token:root"), deploy.AuditFilter{Since: &now, Until: &now}, deploy.EUNPROCESSABLE},
		{"first too large", as("token:root"), deploy.AuditFilter{First: deploy.MaxPageSize + 1}, deploy.EUNPROCESSABLE},
		{"first negative", as("token:root"), deploy.AuditFilter{First: -1}, deploy.EUNPROCESSABLE},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.ListAudit(deploy.WithIdentity(ctx, tt.who), tt.filter)
			if deploy.ErrorCode(err) != tt.code {
				t.Errorf("ListAudit = %v, want %s", err, tt.code)
			}
		})
	}
}
