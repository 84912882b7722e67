package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
)

func producer(id, pattern string) string {
	return `apiVersion: manent/v1
id: ` + id + `
application: web
environment: staging
artifact: {type: application, name: web, version: "1.0.0", source: "file:web-1.tar.gz"}
exports:
  dirs: {from: deploy.targets, format: targets}
  release: {from: deploy.release, pattern: '` + pattern + `'}
`
}

func TestExportsFlowToImports(t *testing.T) {
	e := newEnv(t)
	writeArtifact(t, filepath.Join(e.dir, "artifacts/web-1.tar.gz"))
	var got []deploy.Target
	e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		if req.DeploymentID == "consumer" {
			got = req.Targets
		}
		return nil
	}
	if _, err := e.eng.Submit(e.ctx, []byte(producer("infra", `[0-9]+\.[0-9]+\.[0-9]+`)), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	consumer := `apiVersion: manent/v1
id: consumer
application: app
environment: chain
after: [infra]
imports:
  infra: {deployment: infra}
artifact: {type: application, name: app, version: "1.0.0", source: "file:app-1.tar.gz"}
deploy:
  targetsFrom: [{import: infra, export: dirs}]
`
	sub, err := e.eng.Submit(e.ctx, []byte(consumer), deploy.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Deployment.State != deploy.StateWaitingDependency && sub.Deployment.State != deploy.StateEnqueued {
		t.Fatalf("consumer state %s", sub.Deployment.State)
	}
	p := e.waitState("infra", deploy.StateSuccess)
	if st := deploy.NewStatus(p); st.Exports["release"] != "1.0.0" || st.Exports["dirs"] == nil {
		t.Fatalf("producer exports = %v", st.Exports)
	}
	d := e.waitState("consumer", deploy.StateSuccess)
	if len(got) != 1 || got[0].Path != filepath.Join(e.dir, "targets/web") {
		t.Fatalf("consumer deployed to %+v, want the producer's target", got)
	}
	if src := step(d, "config").Output["import.infra"]; src != "infra@1.0.0" {
		t.Fatalf("config output import.infra = %q", src)
	}
}

func TestExportOutsideItsPattern(t *testing.T) {
	e := newEnv(t)
	writeArtifact(t, filepath.Join(e.dir, "artifacts/web-1.tar.gz"))
	if _, err := e.eng.Submit(e.ctx, []byte(producer("infra-bad", `v[0-9]+`)), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	consumer := strings.ReplaceAll(`apiVersion: manent/v1
id: consumer-bad
application: app
environment: chain
after: [infra-bad]
imports:
  infra: {deployment: infra-bad}
artifact: {type: application, name: app, version: "1.0.0", source: "file:app-1.tar.gz"}
deploy:
  targetsFrom: [{import: infra, export: dirs}]
`, "\t", "  ")
	if _, err := e.eng.Submit(e.ctx, []byte(consumer), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	d := e.waitState("infra-bad", deploy.StateError)
	if !strings.Contains(d.Error, "exports of the deploy not valid") {
		t.Fatalf("producer error = %q", d.Error)
	}
	e.waitState("consumer-bad", deploy.StateDependencyFailed)
	if n := e.plugin.callCount("consumer-bad"); n != 0 {
		t.Fatalf("consumer ran with a bad export")
	}
}

// TestImportFromTheReleaseInService: a current import reads the exports of
// the release in service of another application (inventory).
func TestImportFromTheReleaseInService(t *testing.T) {
	e := newEnv(t)
	writeArtifact(t, filepath.Join(e.dir, "artifacts/web-1.tar.gz"))
	var got []deploy.Target
	e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		if req.DeploymentID == "reader" {
			got = req.Targets
		}
		return nil
	}
	if _, err := e.eng.Submit(e.ctx, []byte(producer("web-live", `[0-9.]+`)), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitState("web-live", deploy.StateSuccess)
	reader := `apiVersion: manent/v1
id: reader
application: app
environment: chain
imports:
  web: {current: {application: web, environment: staging}}
artifact: {type: application, name: app, version: "1.0.0", source: "file:app-1.tar.gz"}
deploy:
  targetsFrom: [{import: web, export: dirs}]
`
	if _, err := e.eng.Submit(e.ctx, []byte(reader), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	d := e.waitState("reader", deploy.StateSuccess)
	if len(got) != 1 || got[0].Path != filepath.Join(e.dir, "targets/web") {
		t.Fatalf("reader deployed to %+v", got)
	}
	if src := step(d, "config").Output["import.web"]; src != "web-live@1.0.0" {
		t.Fatalf("config output import.web = %q", src)
	}
	// The same import naming its tenant reads that tenant's entry; another
	// tenant has nothing in service there.
	named := strings.Replace(strings.Replace(reader, "id: reader", "id: reader-named", 1),
		"{current: {application: web,", "{current: {tenant: demo, application: web,", 1)
	if _, err := e.eng.Submit(e.ctx, []byte(named), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	if d := e.waitState("reader-named", deploy.StateSuccess); step(d, "config").Output["import.web"] != "web-live@1.0.0" {
		t.Fatalf("config output import.web = %q", step(d, "config").Output["import.web"])
	}
	elsewhere := strings.Replace(named, "tenant: demo,", "tenant: elsewhere,", 1)
	elsewhere = strings.Replace(elsewhere, "id: reader-named", "id: reader-elsewhere", 1)
	if _, err := e.eng.Submit(e.ctx, []byte(elsewhere), deploy.SubmitOptions{}); deploy.ErrorCode(err) != deploy.EUNPROCESSABLE ||
		!strings.Contains(err.Error(), "no release in service") {
		t.Fatalf("import from another tenant's environment with nothing in service: %v, want UNPROCESSABLE", err)
	}
	// An environment without a release in service refuses at submission.
	missing := strings.Replace(strings.Replace(reader, "id: reader", "id: reader-2", 1), "environment: staging}", "environment: prod}", 1)
	if _, err := e.eng.Submit(e.ctx, []byte(missing), deploy.SubmitOptions{}); deploy.ErrorCode(err) != deploy.EUNPROCESSABLE {
		t.Fatalf("import from an environment with nothing in service: %v, want UNPROCESSABLE", err)
	}
}

// TestEnvironmentConfigurationImports: the environment configuration takes
// its targets from the release in service of another application; a plain
// deploy runs on them, and a descriptor giving its own targets conflicts.
func TestEnvironmentConfigurationImports(t *testing.T) {
	e := newEnv(t)
	writeArtifact(t, filepath.Join(e.dir, "artifacts/web-1.tar.gz"))
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/app/fromenv.yml"), `plugin: test
imports: {web: {current: {application: web, environment: staging}}}
targets_from: [{import: web, export: dirs}]
`)
	var got []deploy.Target
	e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		if req.DeploymentID == "plain" {
			got = req.Targets
		}
		return nil
	}
	plain := `apiVersion: manent/v1
id: plain
application: app
environment: fromenv
artifact: {type: application, name: app, version: "1.0.0", source: "file:app-1.tar.gz"}
`
	// Nothing in service yet: refused at submission, on the file's key.
	_, err := e.eng.Submit(e.ctx, []byte(plain), deploy.SubmitOptions{})
	if path := fieldPath(err); deploy.ErrorCode(err) != deploy.EUNPROCESSABLE || path != "envconfig.imports.web" {
		t.Fatalf("deploy before the producer: %v (path %q), want UNPROCESSABLE on envconfig.imports.web", err, path)
	}

	if _, err := e.eng.Submit(e.ctx, []byte(producer("web-live", `[0-9.]+`)), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitState("web-live", deploy.StateSuccess)
	sub, err := e.eng.Submit(e.ctx, []byte(plain), deploy.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(e.dir, "targets/web")
	if ts := sub.Deployment.Effective.Targets; len(ts) != 1 || ts[0].Path != want {
		t.Fatalf("effective targets at submission = %+v, want the producer's", ts)
	}
	d := e.waitState("plain", deploy.StateSuccess)
	if len(got) != 1 || got[0].Path != want {
		t.Fatalf("plain deploy ran on %+v, want the producer's target", got)
	}
	out := step(d, "config").Output
	if src := out["envconfig.import.web"]; src != "web-live@1.0.0" {
		t.Fatalf("config output envconfig.import.web = %q (output %v)", src, out)
	}
	if _, ok := out["import.web"]; ok {
		t.Fatalf("config output %v: the file's import is recorded as the descriptor's", out)
	}

	// With targets_from, the descriptor's own targets are a conflict.
	own := strings.Replace(plain, "id: plain", "id: own", 1) + "deploy: {targets: [{path: /mine}]}\n"
	_, err = e.eng.Submit(e.ctx, []byte(own), deploy.SubmitOptions{})
	var de *deploy.Error
	if !errors.As(err, &de) || de.Code != deploy.EUNPROCESSABLE || len(de.Fields) != 1 ||
		de.Fields[0].Path != "deploy.targets" || !strings.HasPrefix(de.Fields[0].Message, "conflict") {
		t.Fatalf("descriptor with its own targets: %v, want a conflict on deploy.targets", err)
	}
}

// fieldPath is the path of the only problem of a *deploy.Error, "" otherwise.
func fieldPath(err error) string {
	var de *deploy.Error
	if !errors.As(err, &de) || len(de.Fields) != 1 {
		return ""
	}
	return de.Fields[0].Path
}
