package graph

import (
	"context"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

func TestAfterField(t *testing.T) {
	expires := approvalT0.Add(24 * time.Hour)
	tests := []struct {
		name   string
		change func(d *deploy.Deployment)
		want   string
	}{
		{name: "no after", change: func(*deploy.Deployment) {}, want: `{"after":null}`},
		{name: "waiting for one of two, one removed by retention", change: func(d *deploy.Deployment) {
			d.State = deploy.StateWaitingDependency
			d.Descriptor.After = []string{"db-1", "gone-1"}
			d.Dependencies = []deploy.Dependency{{ID: "db-1", State: deploy.StatePending}, {ID: "gone-1"}}
			d.AfterExpiresAt = &expires
		}, want: `{"after":{"status":"waiting","expiresAt":"2025-03-03T09:00:00Z","reason":null,` +
			`"dependencies":[{"id":"db-1","state":"PENDING"},{"id":"gone-1","state":null}]}}`},
		{name: "failed", change: func(d *deploy.Deployment) {
			d.State = deploy.StateDependencyFailed
			d.Error = "db-1 ended ERROR"
			d.Descriptor.After = []string{"db-1"}
			d.Dependencies = []deploy.Dependency{{ID: "db-1", State: deploy.StateError}}
		}, want: `{"after":{"status":"failed","expiresAt":null,"reason":"db-1 ended ERROR",` +
			`"dependencies":[{"id":"db-1","state":"ERROR"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDeployBoard().d
			tt.change(&d)
			svc := &fakeService{get: func(context.Context, string) (*deploy.Deployment, error) { return &d, nil }}
			srv := newTestServer(t, svc, newFakeEvents())
			resp := srv.query(t, "admin", `{ deployment(id: "hello-1") { after { status expiresAt reason dependencies { id state } } } }`, nil)
			if len(resp.Errors) > 0 {
				t.Fatalf("errors: %+v", resp.Errors)
			}
			if got := string(resp.Data["deployment"]); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestDependentsField(t *testing.T) {
	tests := []struct {
		name       string
		dependents []deploy.Dependency
		want       string
	}{
		{name: "none", want: `{"dependents":[]}`},
		{name: "in the store's order, each with its state", dependents: []deploy.Dependency{
			{ID: "api-1", State: deploy.StateWaitingDependency},
			{ID: "web-1", State: deploy.StateSuccess},
			{ID: "gone-1"},
		}, want: `{"dependents":[{"id":"api-1","state":"WAITING_DEPENDENCY"},{"id":"web-1","state":"SUCCESS"},{"id":"gone-1","state":null}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDeployBoard().d
			d.Dependents = tt.dependents
			svc := &fakeService{get: func(context.Context, string) (*deploy.Deployment, error) { return &d, nil }}
			srv := newTestServer(t, svc, newFakeEvents())
			resp := srv.query(t, "admin", `{ deployment(id: "hello-1") { dependents { id state } } }`, nil)
			if len(resp.Errors) > 0 {
				t.Fatalf("errors: %+v", resp.Errors)
			}
			if got := string(resp.Data["deployment"]); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestExportsField(t *testing.T) {
	tests := []struct {
		name    string
		exports []deploy.Export
		want    string
	}{
		{name: "none", want: `{"exports":[]}`},
		{name: "sorted by name, format defaults to string", exports: []deploy.Export{
			{Name: "vms", Format: deploy.ExportTargets, Value: `[{"host":"10.20.0.1"}]`, Public: true},
			{Name: "db_host", Value: "db.internal"},
		}, want: `{"exports":[{"name":"db_host","format":"string","value":"db.internal","public":false},` +
			`{"name":"vms","format":"targets","value":"[{\"host\":\"10.20.0.1\"}]","public":true}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDeployBoard().d
			d.State = deploy.StateSuccess
			d.Exports = tt.exports
			svc := &fakeService{get: func(context.Context, string) (*deploy.Deployment, error) { return &d, nil }}
			srv := newTestServer(t, svc, newFakeEvents())
			resp := srv.query(t, "admin", `{ deployment(id: "hello-1") { exports { name format value public } } }`, nil)
			if len(resp.Errors) > 0 {
				t.Fatalf("errors: %+v", resp.Errors)
			}
			if got := string(resp.Data["deployment"]); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
