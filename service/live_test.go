package service_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/plugins/local"
	"manent.dev/manent/internal/authz"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/service"
)

// TestViewAnswersAsGet: what the live fan-out shows a caller (one
// ReadShared for everyone, then View per caller) is exactly what Get
// answers that caller, with the same Casbin policy: the deploy or not
// found, and only the dependents and dependency states it may read. The
// shared read is left whole for the next caller.
func TestViewAnswersAsGet(t *testing.T) {
	dir := t.TempDir()
	for _, app := range []string{"hello", "other"} {
		env := filepath.Join(dir, "envconfig/demo", app, "staging.yml")
		if err := os.MkdirAll(filepath.Dir(env), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(env, []byte("plugin: local\ntargets: [{path: targets/"+app+"}]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Parse([]byte("server: {default_tenant: demo}\nartifacts: {sources: [\"file:\"], file_root: artifacts}\n"), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	db := migratedDB(t)
	az, err := authz.New("", `p, token:all, demo, *, deployment.submit
p, token:all, demo, *, deployment.read
p, token:hello, demo, hello/*, deployment.read
p, token:other, demo, other/*, deployment.read
p, token:other, demo, other/*, deployment.submit
`)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.New(service.Options{Config: cfg, Store: postgres.NewStore(db), Authorizer: az, Plugins: []deploy.Plugin{local.New(dir)}})
	if err != nil {
		t.Fatal(err)
	}
	svc.Use(&enqueued{})
	submitter := deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:all"})
	descriptor := func(id, app, extra string) []byte {
		return []byte("apiVersion: manent/v1\nid: " + id + "\napplication: " + app + "\nenvironment: staging\n" +
			"artifact: {type: application, name: " + app + ", version: 1.0.0, source: \"file:a.tar.gz\"}\n" + extra)
	}
	for _, d := range [][]byte{
		descriptor("base", "hello", ""),
		descriptor("dep-hello", "hello", "after: [base]\n"),
		descriptor("dep-other", "other", "after: [base]\n"),
	} {
		if _, err := svc.Submit(submitter, d, deploy.SubmitOptions{}); err != nil {
			t.Fatalf("submit: %v", err)
		}
	}
	for _, id := range []string{"base", "dep-other"} {
		shared, err := svc.ReadShared(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		before := *shared
		for _, subject := range []string{"token:all", "token:hello", "token:other", "token:nobody", ""} {
			t.Run(id+" as "+subject, func(t *testing.T) {
				caller := ctx
				if subject != "" {
					caller = deploy.WithIdentity(ctx, deploy.Identity{Subject: subject})
				}
				want, wantErr := svc.Get(caller, id)
				got, err := svc.View(caller, shared)
				if deploy.ErrorCode(err) != deploy.ErrorCode(wantErr) || (err == nil) != (wantErr == nil) {
					t.Fatalf("View: %v, Get: %v", err, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("View = %+v\nGet  = %+v", got, want)
				}
				if !reflect.DeepEqual(*shared, before) {
					t.Errorf("View changed the shared read")
				}
			})
		}
	}
	// The policy cuts what the views show, or the test above compares
	// little: hello's reader sees one dependent of base, other's reader
	// sees dep-other without the state of base.
	hello, err := svc.Get(deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:hello"}), "base")
	if err != nil {
		t.Fatal(err)
	}
	all, err := svc.Get(submitter, "base")
	if err != nil {
		t.Fatal(err)
	}
	if len(hello.Dependents) != 1 || len(all.Dependents) != 2 {
		t.Errorf("dependents of base: %d for hello's reader, %d for all; want 1 and 2", len(hello.Dependents), len(all.Dependents))
	}
	other, err := svc.Get(deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:other"}), "dep-other")
	if err != nil {
		t.Fatal(err)
	}
	if len(other.Dependencies) != 1 || other.Dependencies[0].State != "" {
		t.Errorf("other's reader sees the dependencies %+v of dep-other, want base's state hidden", other.Dependencies)
	}
	// Submitted again, the deploy is answered as Get shows it to the caller:
	// a resubmit is no way to read the state of a deploy it may not read.
	again, err := svc.Submit(deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:other"}),
		descriptor("dep-other", "other", "after: [base]\n"), deploy.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Created || len(again.Deployment.Dependencies) != 1 || again.Deployment.Dependencies[0].State != "" {
		t.Errorf("submitted again by other's reader: created %v, dependencies %+v; want the existing deploy, base's state hidden",
			again.Created, again.Deployment.Dependencies)
	}
}
