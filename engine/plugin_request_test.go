package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"manent.dev/manent/deploy"
)

// TestFailedPluginStepKeepsItsOutputs: what a failing plugin says of each
// target stays in the step's record next to its error.
func TestFailedPluginStepKeepsItsOutputs(t *testing.T) {
	e := newEnv(t)
	e.plugin.outputs = map[string]string{"results": `[{"target":"a","outcome":"unpacked"},{"target":"b","outcome":"failed"}]`}
	e.plugin.deploy = func(context.Context, deploy.PluginRequest) error {
		return deploy.Permanent(errors.New("1 of 2 targets failed: b: exit 1"))
	}
	e.submit("fo-1", "app", "staging")
	d := e.waitState("fo-1", deploy.StateError)
	s := step(d, deploy.StepDeploy)
	if s.State != deploy.StepError || s.Output["results"] != e.plugin.outputs["results"] {
		t.Errorf("deploy step %s, output %v: want ERROR with the plugin's results", s.State, s.Output)
	}
}

// TestActivationIsToldWhatSucceeded: the activation's request lists the
// versions manent recorded as successful in the environment, newest
// first, each once: not the failed deploys, not the dry runs, not other
// environments.
func TestActivationIsToldWhatSucceeded(t *testing.T) {
	e := newEnv(t)
	e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		if req.Artifact.Version == "3.0.0" {
			return deploy.Permanent(errors.New("refused"))
		}
		return nil
	}
	run := func(id, environment, version string, dryRun bool, want deploy.State) {
		t.Helper()
		doc := fmt.Sprintf(`apiVersion: manent/v1
id: %s
application: app
environment: %s
artifact: {type: application, name: app, version: %q, source: "file:app-1.tar.gz"}
dryRun: %t
`, id, environment, version, dryRun)
		if _, err := e.eng.Submit(e.ctx, []byte(doc), deploy.SubmitOptions{}); err != nil {
			t.Fatalf("submit %s: %v", id, err)
		}
		e.waitState(id, want)
	}
	run("su-1", "staging", "1.0.0", false, deploy.StateSuccess)
	run("su-2", "staging", "2.0.0", false, deploy.StateSuccess)
	run("su-3", "staging", "3.0.0", false, deploy.StateError)
	run("su-4", "staging", "4.0.0", true, deploy.StateSuccess)
	run("su-5", "prod", "5.0.0", false, deploy.StateSuccess)
	run("su-6", "staging", "1.0.0", false, deploy.StateSuccess)
	run("su-7", "staging", "7.0.0", false, deploy.StateSuccess)
	e.plugin.mu.Lock()
	defer e.plugin.mu.Unlock()
	if got, want := e.plugin.succeeded["su-7"], []string{"1.0.0", "2.0.0"}; !slices.Equal(got, want) {
		t.Errorf("the activation of su-7 was told %q succeeded, want %q", got, want)
	}
	if got := e.plugin.succeeded["su-1"]; len(got) != 0 {
		t.Errorf("the first activation was told %q succeeded, want nothing", got)
	}
}

// TestPluginRequestNamesTheDeploysEnvironment: a plugin request carries the
// tenant, application and environment of the deploy, which the ssh plugin
// keeps the state lines of two environments on one directory apart with.
func TestPluginRequestNamesTheDeploysEnvironment(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	var got []string
	e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, req.Tenant+"/"+req.Application+"/"+req.Environment)
		return nil
	}
	e.submit("pr-1", "app", "staging")
	d := e.waitState("pr-1", deploy.StateSuccess)
	mu.Lock()
	defer mu.Unlock()
	if want := []string{d.Tenant + "/app/staging"}; d.Tenant == "" || !slices.Equal(got, want) {
		t.Errorf("the deploy step was asked for %q, want %q", got, want)
	}
}
