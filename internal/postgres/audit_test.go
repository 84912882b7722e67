package postgres_test

import (
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// auditFixture stores three deploys (demo app/staging, demo app/prod,
// other app/prod), each with its deployment.submit entry, then for each an
// approval at a known time, and one entry about no environment.
func auditFixture(t *testing.T) (*fixture, time.Time) {
	f := newFixture(t)
	base := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for i, d := range []deploy.Deployment{deployment("a-stg", "staging"), deployment("a-prod", "prod"), deployment("o-prod", "prod")} {
		if d.ID == "o-prod" {
			d.Tenant = "other"
		}
		f.create(d)
		e := deploy.AuditEntry{Time: base.Add(time.Duration(i) * time.Hour), Actor: "token:alice",
			Action: "deployment.approve", Target: d.ID, Details: map[string]any{"n": i}}
		if err := f.store.AppendAudit(f.ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.store.AppendAudit(f.ctx, deploy.AuditEntry{Time: base, Actor: "system", Action: "config.reload"}); err != nil {
		t.Fatal(err)
	}
	return f, base
}

// keys names entries action@target, in the order listed.
func keys(es []deploy.AuditEntry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.Action+"@"+e.Target)
	}
	return out
}

func TestListAuditFilters(t *testing.T) {
	f, base := auditFixture(t)
	at := func(h int) *time.Time { x := base.Add(time.Duration(h) * time.Hour); return &x }
	tests := []struct {
		name   string
		filter deploy.AuditFilter
		want   []string
	}{
		{"all, newest appended first", deploy.AuditFilter{}, []string{"config.reload@",
			"deployment.approve@o-prod", "deployment.submit@o-prod", "deployment.approve@a-prod",
			"deployment.submit@a-prod", "deployment.approve@a-stg", "deployment.submit@a-stg"}},
		{"tenant", deploy.AuditFilter{Tenant: "other"}, []string{"deployment.approve@o-prod", "deployment.submit@o-prod"}},
		{"environment", deploy.AuditFilter{Tenant: "demo", Environment: "prod"},
			[]string{"deployment.approve@a-prod", "deployment.submit@a-prod"}},
		{"application", deploy.AuditFilter{Application: "app", Environment: "staging"},
			[]string{"deployment.approve@a-stg", "deployment.submit@a-stg"}},
		{"unknown application", deploy.AuditFilter{Application: "nope"}, []string{}},
		{"actor", deploy.AuditFilter{Actor: "token:alice", Tenant: "demo"},
			[]string{"deployment.approve@a-prod", "deployment.approve@a-stg"}},
		{"action", deploy.AuditFilter{Action: "deployment.submit", Environment: "prod"},
			[]string{"deployment.submit@o-prod", "deployment.submit@a-prod"}},
		{"action prefix", deploy.AuditFilter{Action: "config.*"}, []string{"config.reload@"}},
		{"a prefix is not a substring", deploy.AuditFilter{Action: "reload*"}, []string{}},
		{"time range", deploy.AuditFilter{Since: at(1), Until: at(2)}, []string{"deployment.approve@a-prod"}},
		{"readable", deploy.AuditFilter{Readable: func(e deploy.AuditEntry) bool {
			return len(e.Resources) == 1 && e.Resources[0].Tenant == "other"
		}}, []string{"deployment.approve@o-prod", "deployment.submit@o-prod"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := f.store.ListAudit(f.ctx, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if got := keys(page.Items); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ListAudit = %v, want %v", got, tt.want)
			}
			if page.HasNextPage {
				t.Error("HasNextPage on the only page")
			}
		})
	}
}

func TestListAuditEntry(t *testing.T) {
	f, base := auditFixture(t)
	page, err := f.store.ListAudit(f.ctx, deploy.AuditFilter{Action: "deployment.approve", Tenant: "other"})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("ListAudit = %v, %v", page.Items, err)
	}
	got := page.Items[0]
	got.ID = 0
	want := deploy.AuditEntry{Time: base.Add(2 * time.Hour), Actor: "token:alice", Action: "deployment.approve",
		Target: "o-prod", Details: map[string]any{"n": float64(2)},
		Resources: []deploy.Resource{{Tenant: "other", Application: "app", Environment: "prod"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entry = %+v, want %+v", got, want)
	}
}

func TestListAuditPages(t *testing.T) {
	f, _ := auditFixture(t)
	all, err := f.store.ListAudit(f.ctx, deploy.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	// Every other entry readable: the pages skip the others and never
	// list one twice.
	readable := func(e deploy.AuditEntry) bool { return e.ID%2 == 0 }
	var want []string
	for _, e := range all.Items {
		if readable(e) {
			want = append(want, e.Action+"@"+e.Target)
		}
	}
	var got []string
	after := ""
	for range 10 {
		page, err := f.store.ListAudit(f.ctx, deploy.AuditFilter{First: 2, After: after, Readable: readable})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Cursors) != len(page.Items) {
			t.Fatalf("%d cursors for %d entries", len(page.Cursors), len(page.Items))
		}
		got = append(got, keys(page.Items)...)
		if !page.HasNextPage {
			break
		}
		after = page.EndCursor
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pages = %v, want %v", got, want)
	}
}

func TestListAuditBadCursor(t *testing.T) {
	f := newFixture(t)
	for _, c := range []string{"!!", "eA", "YXVkaXR8LTE", "YXVkaXR8eA"} {
		_, err := f.store.ListAudit(f.ctx, deploy.AuditFilter{After: c})
		if deploy.ErrorCode(err) != deploy.EUNPROCESSABLE {
			t.Errorf("ListAudit(after %q) = %v, want EUNPROCESSABLE", c, err)
		}
	}
}
