package service_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/plugins/local"
	"manent.dev/manent/internal/authz"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/service"
)

// enqueued is the service's Engine port, recording what it is handed: the
// tests here are about what the service accepts, not about running it.
type enqueued struct {
	mu   sync.Mutex
	jobs []string
}

func (e *enqueued) add(id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.jobs = append(e.jobs, id)
	return nil
}

func (e *enqueued) ids() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.jobs)
}

func (e *enqueued) EnqueueDeploy(_ any, j deploy.Job) error { return e.add(j.ID) }
func (e *enqueued) RolloutRequested(any, string) error      { return nil }
func (e *enqueued) ReplayCallbacks(context.Context, string, string, bool) ([]deploy.Delivery, error) {
	return nil, nil
}
func (e *enqueued) EnqueueWait(_ any, j deploy.Job, _ deploy.WaitPlan) error { return e.add(j.ID) }
func (e *enqueued) EnqueueRelease(_ any, p deploy.ReleasePlan) error         { return e.add(p.ID) }
func (e *enqueued) EnqueueSchedule(_ any, g deploy.ScheduleGeneration) error {
	return e.add(g.Name)
}
func (*enqueued) StopSchedule(string, int, *time.Time)                               {}
func (*enqueued) Answered(any, string) error                                         { return nil }
func (*enqueued) Cancelled(context.Context, *deploy.Deployment, deploy.CancelResult) {}
func (*enqueued) StopRelease(string)                                                 {}
func (*enqueued) Rejected(context.Context, string)                                   {}

// newSourceService is a service on a new database, with file: and one
// HTTP host allowed and artifacts under <dir>/artifacts.
// newSourceService also returns the artifacts.file_root of its
// configuration.
func newSourceService(t *testing.T) (*service.Service, *postgres.Store, *enqueued, context.Context, string) {
	t.Helper()
	dir := t.TempDir()
	env := filepath.Join(dir, "envconfig/demo/hello/staging.yml")
	if err := os.MkdirAll(filepath.Dir(env), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(env, []byte("plugin: local\ntargets: [{path: targets/staging}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte(`server: {default_tenant: demo}
artifacts:
  sources: ["file:", "https://repo.example.com/"]
  file_root: artifacts
`), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	db := migratedDB(t)
	store := postgres.NewStore(db)
	az, err := authz.New("", "p, token:ci, demo, hello/*, deployment.submit\np, token:ci, demo, hello/*, deployment.read\n")
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.New(service.Options{Config: cfg, Store: store, Authorizer: az, Plugins: []deploy.Plugin{local.New(dir)}})
	if err != nil {
		t.Fatal(err)
	}
	eng := &enqueued{}
	svc.Use(eng)
	return svc, store, eng, deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:ci"}), cfg.Artifacts.FileRoot
}

func descriptorFrom(id, source string) []byte {
	return fmt.Appendf(nil, `apiVersion: manent/v1
id: %s
application: hello
environment: staging
artifact: {type: application, name: hello, version: 1.0.0, source: %q}
`, id, source)
}

// TestSubmitRefusesSourcesOutsideTheFileRoot is the spec's check 3: a source
// the artifacts step would refuse is refused at submission, with a 422 on
// artifact.source, and nothing is stored or enqueued.
func TestSubmitRefusesSourcesOutsideTheFileRoot(t *testing.T) {
	svc, store, eng, ctx, root := newSourceService(t)
	const absolute = "is an absolute path: file: sources are names under artifacts.file_root"
	tests := []struct {
		name, source string
		// problem is the message on artifact.source, "" when accepted.
		problem string
	}{
		{"relative path up out of the root", "file:../../../../etc/passwd", "is outside artifacts.file_root"},
		{"short relative path up", "file:../../etc/passwd", "is outside artifacts.file_root"},
		{"absolute path outside the root", "file:///etc/passwd", absolute},
		{"absolute path inside the root", "file://" + root + "/hello-1.0.0.tar.gz", absolute},
		{"not in the allow-list", "https://elsewhere.example.com/hello.tgz", "is not allowed by artifacts.sources"},
		{"inside the root", "file:hello-1.0.0.tar.gz", ""},
		{"allowed host", "https://repo.example.com/hello-1.0.0.tar.gz", ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := fmt.Sprintf("source-%d", i)
			sub, err := svc.Submit(ctx, descriptorFrom(id, tt.source), deploy.SubmitOptions{})
			if tt.problem == "" {
				if err != nil || !sub.Created {
					t.Fatalf("submit: %+v, %v; want it accepted", sub, err)
				}
				return
			}
			var e *deploy.Error
			if !errors.As(err, &e) || e.Code != deploy.EUNPROCESSABLE {
				t.Fatalf("submit: %v, want UNPROCESSABLE", err)
			}
			if want := []deploy.FieldError{{Path: "artifact.source", Message: tt.problem}}; !slices.Equal(e.Fields, want) {
				t.Errorf("fields %v, want %v", e.Fields, want)
			}
			if _, err := store.Get(ctx, id); deploy.ErrorCode(err) != deploy.ENOTFOUND {
				t.Errorf("the refused deploy is stored: %v", err)
			}
			if slices.Contains(eng.ids(), id) {
				t.Errorf("the refused deploy was enqueued")
			}
			// manent validate runs the same checks.
			if _, err := svc.Submit(ctx, descriptorFrom(id, tt.source), deploy.SubmitOptions{ValidateOnly: true}); deploy.ErrorCode(err) != deploy.EUNPROCESSABLE {
				t.Errorf("validate: %v, want UNPROCESSABLE", err)
			}
		})
	}
}

// TestReleaseRefusesSourcesOutsideTheFileRoot: a release reports the
// member's field, and stores none of its deploys.
func TestReleaseRefusesSourcesOutsideTheFileRoot(t *testing.T) {
	svc, store, eng, ctx, _ := newSourceService(t)
	_, err := svc.SubmitRelease(ctx, []byte(`apiVersion: manent/v1
kind: Release
id: rel-1
deploys:
  - name: good
    descriptor:
      apiVersion: manent/v1
      application: hello
      environment: staging
      artifact: {type: application, name: hello, version: 1.0.0, source: "file:hello-1.0.0.tar.gz"}
  - name: bad
    descriptor:
      apiVersion: manent/v1
      application: hello
      environment: staging
      artifact: {type: application, name: hello, version: 1.0.1, source: "file:///etc/passwd"}
`))
	var e *deploy.Error
	if !errors.As(err, &e) || e.Code != deploy.EUNPROCESSABLE {
		t.Fatalf("submit release: %v, want UNPROCESSABLE", err)
	}
	want := []deploy.FieldError{{Path: "deploys[1].descriptor.artifact.source", Message: "artifact source refused: is an absolute path: file: sources are names under artifacts.file_root"}}
	if !slices.Equal(e.Fields, want) {
		t.Errorf("fields %v, want %v", e.Fields, want)
	}
	if _, err := store.GetRelease(ctx, "rel-1"); deploy.ErrorCode(err) != deploy.ENOTFOUND {
		t.Errorf("the refused release is stored: %v", err)
	}
	if got := eng.ids(); len(got) != 0 {
		t.Errorf("enqueued %v", got)
	}
}
