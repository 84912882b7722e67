package service_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/plugins/local"
	"manent.dev/manent/governance"
	"manent.dev/manent/internal/authz"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/service"
)

// newSubmissionService is a service on a new database whose token:ci
// submits to hello's staging, prod (where governance asks an approval) and
// waves (a rollout in two waves) environments.
func newSubmissionService(t *testing.T) (*service.Service, *postgres.Store, *postgres.DB, context.Context) {
	t.Helper()
	return newSubmissionServiceWith(t, nil)
}

// newSubmissionServiceWith is newSubmissionService on the store wrap makes
// of the database's (nil: the database's).
func newSubmissionServiceWith(t *testing.T, wrap func(*postgres.Store) service.Store) (*service.Service, *postgres.Store, *postgres.DB, context.Context) {
	t.Helper()
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
	db := migratedDB(t)
	store := postgres.NewStore(db)
	az, err := authz.New("", `p, token:ci, demo, hello/*, deployment.submit
p, token:ci, demo, hello/*, deployment.dry-run
p, token:ci, demo, hello/*, deployment.rollback
p, token:ci, demo, hello/*, deployment.read
`)
	if err != nil {
		t.Fatal(err)
	}
	var used service.Store = store
	if wrap != nil {
		used = wrap(store)
	}
	svc, err := service.New(service.Options{Config: cfg, Store: used, Authorizer: az, Governor: gov,
		Plugins: []deploy.Plugin{local.New(dir)}})
	if err != nil {
		t.Fatal(err)
	}
	svc.Use(&enqueued{})
	return svc, store, db, deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:ci", Groups: []string{"release-managers"}})
}

// TestSubmissionIsGet: the deploy a submission answers, which the store
// returns without reading it again, is the one a Get reads right after,
// field for field, for deploys of every shape: what Get reads beside the
// row (dependencies, approvals, wave approvals, deliveries) included.
func TestSubmissionIsGet(t *testing.T) {
	svc, store, _, ci := newSubmissionService(t)
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
			got, err := store.Get(ci, tc.id)
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

// inventoryReads counts the reads of a whole tenant's inventory and of one
// application's releases in service.
type inventoryReads struct {
	service.Store
	tenants, applications atomic.Int64
}

func (s *inventoryReads) Inventory(ctx context.Context, tenant string) ([]deploy.InventoryEntry, error) {
	s.tenants.Add(1)
	return s.Store.Inventory(ctx, tenant)
}

func (s *inventoryReads) InService(ctx context.Context, tenant, application, environment string) ([]deploy.InventoryEntry, error) {
	s.applications.Add(1)
	return s.Store.InService(ctx, tenant, application, environment)
}

// Governance reads the releases in service of the deploy's application at
// every submission and every recheck, never the tenant's whole inventory,
// whose cost grows with every environment of every application.
func TestGovernanceReadsTheApplicationsReleasesOnly(t *testing.T) {
	reads := &inventoryReads{}
	svc, _, _, ci := newSubmissionServiceWith(t, func(s *postgres.Store) service.Store {
		reads.Store = s
		return reads
	})
	sub, err := svc.Submit(ci, descriptor("gov", "prod", ""), deploy.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Deployment.Descriptor.Tenant != "demo" {
		t.Fatalf("the submitted descriptor's tenant is %q", sub.Deployment.Descriptor.Tenant)
	}
	if _, err := svc.Recheck(ci, deploy.IdentityFrom(ci), sub.Deployment.Descriptor); err != nil {
		t.Fatal(err)
	}
	if n := reads.tenants.Load(); n != 0 {
		t.Errorf("the tenant's whole inventory was read %d times", n)
	}
	if n := reads.applications.Load(); n != 2 {
		t.Errorf("the application's releases in service were read %d times, want 2 (the submission, the recheck)", n)
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

// descriptor is a descriptor of hello to env, with the lines extra.
func descriptor(id, env, extra string) []byte {
	return fmt.Appendf(nil, `apiVersion: manent/v1
id: %s
application: hello
environment: %s
labels: {team: a}
artifact: {type: application, name: hello, version: 1.0.0, source: "file:hello.tar.gz"}
%s`, id, env, extra)
}

// TestSubmitChecksItsDependencies: each deploy after: names is checked at
// submission: one that is missing or unreadable, a dry run, one that ended
// otherwise than SUCCESS refuse it; one that succeeded lets it run at once;
// one not ended, or a release's sibling left unchecked, makes it wait.
func TestSubmitChecksItsDependencies(t *testing.T) {
	svc, store, db, ci := newSubmissionService(t)
	create := func(id, app string, dryRun bool, states ...deploy.State) {
		t.Helper()
		d := deploy.Deployment{ID: id, Tenant: "demo", Application: app, Environment: "staging", State: deploy.StateEnqueued,
			Requester: "token:ci", DryRun: dryRun,
			Descriptor: deploy.Descriptor{APIVersion: "manent/v1", ID: id, Application: app, Environment: "staging"}}
		if _, _, err := store.CreateDeployment(ci, d, func(any) error { return nil }); err != nil {
			t.Fatal(err)
		}
		for _, s := range states {
			if _, err := db.Bun().ExecContext(ci, "UPDATE manent.deployments SET state = ? WHERE id = ?", s, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	create("running", "hello", false, deploy.StatePending)
	create("done", "hello", false, deploy.StatePending, deploy.StateSuccess)
	create("failed", "hello", false, deploy.StatePending, deploy.StateError)
	create("rehearsal", "hello", true)
	create("elsewhere", "other", false)
	tests := []struct {
		name   string
		after  string
		skip   []string
		state  deploy.State // the submission's, when accepted
		fields []string     // the refusal's, path: message
	}{
		{name: "succeeded", after: "[done]", state: deploy.StateEnqueued},
		{name: "not ended", after: "[done, running]", state: deploy.StateWaitingDependency},
		{name: "a release's sibling", after: "[done, sibling]", skip: []string{"sibling"}, state: deploy.StateWaitingDependency},
		{name: "refused, each for its reason", after: "[missing, elsewhere, rehearsal, failed, running]", fields: []string{
			`after[0]: no deploy "missing" (or no deployment.read on it)`,
			`after[1]: no deploy "elsewhere" (or no deployment.read on it)`,
			`after[2]: "rehearsal" is a dry-run: nothing can wait for it`,
			`after[3]: "failed" already ended ERROR`,
		}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprintf("dependent-%d", i)
			sub, err := svc.Submit(ci, descriptor(id, "staging", "after: "+tc.after+"\n"), deploy.SubmitOptions{SkipAfterCheckFor: tc.skip})
			if tc.fields != nil {
				var de *deploy.Error
				if !errors.As(err, &de) || de.Code != deploy.EUNPROCESSABLE {
					t.Fatalf("Submit = %v, want the dependencies refused", err)
				}
				var got []string
				for _, f := range de.Fields {
					got = append(got, f.Path+": "+f.Message)
				}
				if !slices.Equal(got, tc.fields) {
					t.Errorf("refused for\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.fields, "\n"))
				}
				if _, err := store.Get(ci, id); deploy.ErrorCode(err) != deploy.ENOTFOUND {
					t.Errorf("the refused deploy was stored: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Submit: %v", err)
			}
			if sub.Deployment.State != tc.state {
				t.Errorf("submitted %s, want %s", sub.Deployment.State, tc.state)
			}
		})
	}
}
