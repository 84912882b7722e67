package service_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/plugins/local"
	"manent.dev/manent/governance"
	"manent.dev/manent/internal/authz"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/service"
)

// TestSubmissionIsGet: the deploy a submission answers, which the store
// returns without reading it again, is the one a Get reads right after,
// field for field, for deploys of every shape: what Get reads beside the
// row (dependencies, approvals, wave approvals, deliveries) included.
func TestSubmissionIsGet(t *testing.T) {
	dir := t.TempDir()
	envs := map[string]string{
		"staging": "plugin: local\ntargets: [{path: targets/staging}]\n",
		"prod":    "plugin: local\ntargets: [{path: targets/prod}]\n",
		"waves":   "plugin: local\ntargets: [{path: targets/a}, {path: targets/b}]\nrollout:\n  waves: [{name: one, count: 1}, {name: two}]\n",
	}
	for env, yml := range envs {
		path := filepath.Join(dir, "envconfig/demo/hello", env+".yml")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(yml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Parse([]byte(`server: {default_tenant: demo}
artifacts: {sources: ["file:"], file_root: artifacts}
callbacks: {allowed: ["https://hooks.example.com/"], signing_key_refs: ["file:callback-key"]}
governance:
  approvals:
    - name: hello-prod
      match: {environment: prod}
      count: 1
      expiry: 24h
`), dir)
	if err != nil {
		t.Fatal(err)
	}
	gov, err := governance.New(cfg.Governance, nil)
	if err != nil {
		t.Fatal(err)
	}
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
	az, err := authz.New("", `p, token:ci, demo, hello/*, deployment.submit
p, token:ci, demo, hello/*, deployment.dry-run
p, token:ci, demo, hello/*, deployment.rollback
p, token:ci, demo, hello/*, deployment.read
`)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.New(service.Options{Config: cfg, Store: store, Authorizer: az, Governor: gov,
		Plugins: []deploy.Plugin{local.New(dir)}})
	if err != nil {
		t.Fatal(err)
	}
	eng := &enqueued{}
	svc.Use(eng)
	ci := deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:ci", Groups: []string{"release-managers"}})
	descriptor := func(id, env, extra string) []byte {
		return fmt.Appendf(nil, `apiVersion: manent/v1
id: %s
application: hello
environment: %s
labels: {team: a}
artifact: {type: application, name: hello, version: 1.0.0, source: "file:hello.tar.gz"}
%s`, id, env, extra)
	}
	if _, err := svc.Submit(ci, descriptor("base", "staging", ""), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	tests := []struct {
		name  string
		id    string
		raw   []byte
		opts  deploy.SubmitOptions
		state deploy.State
	}{
		{"plain", "plain", descriptor("plain", "staging", ""), deploy.SubmitOptions{}, deploy.StateEnqueued},
		{"a dry run", "dry", descriptor("dry", "prod", "dryRun: true\n"), deploy.SubmitOptions{}, deploy.StateEnqueued},
		{"after a deploy not ended", "after", descriptor("after", "staging", "after: [base]\n"), deploy.SubmitOptions{},
			deploy.StateWaitingDependency},
		{"awaiting approval", "approval", descriptor("approval", "prod", ""), deploy.SubmitOptions{}, deploy.StateAwaitingApproval},
		{"scheduled", "later", descriptor("later", "staging", "schedule: {at: \""+at+"\"}\n"), deploy.SubmitOptions{}, deploy.StateDelayed},
		{"with waves and callbacks", "waves", descriptor("waves", "waves", "callbacks:\n  - url: https://hooks.example.com/a\n"),
			deploy.SubmitOptions{}, deploy.StateEnqueued},
		{"a release's member", "member", descriptor("member", "staging", "after: [sibling]\n"),
			deploy.SubmitOptions{Release: "rel-1", SkipAfterCheckFor: []string{"sibling"}}, deploy.StateWaitingDependency},
		{"a rollback", "undo", descriptor("undo", "staging", ""), deploy.SubmitOptions{RollbackOf: "base"}, deploy.StateEnqueued},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sub, err := svc.Submit(ci, tc.raw, tc.opts)
			if err != nil {
				t.Fatalf("Submit: %v", err)
			}
			if !sub.Created || sub.Deployment.ID != tc.id || sub.Deployment.State != tc.state {
				t.Fatalf("Submit = created %v, %s %s; want created, %s %s", sub.Created, sub.Deployment.ID, sub.Deployment.State, tc.id, tc.state)
			}
			got, err := store.Get(ctx, tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(sub.Deployment, *got) {
				t.Errorf("the submission's deploy and Get's differ in %v\nsubmitted %#v\nGet       %#v",
					differing(sub.Deployment, *got), sub.Deployment, *got)
			}
		})
	}
}

// differing names the fields of a and b that differ.
func differing(a, b deploy.Deployment) []string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var out []string
	for i := range va.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, va.Type().Field(i).Name)
		}
	}
	return out
}
