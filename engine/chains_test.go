package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

func withAfter(doc string, after ...string) string {
	return doc + "after: [" + strings.Join(after, ", ") + "]\n"
}

// blockDeploys makes the plugin hold the named deploys until their channel closes.
func blockDeploys(e *env, ids ...string) map[string]chan struct{} {
	gates := map[string]chan struct{}{}
	started := map[string]chan struct{}{}
	once := map[string]*sync.Once{}
	for _, id := range ids {
		gates[id] = make(chan struct{})
		started[id+":started"] = make(chan struct{})
		once[id] = &sync.Once{}
	}
	e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		if g, ok := gates[req.DeploymentID]; ok {
			// A step run again after a restart finds the gate open.
			once[req.DeploymentID].Do(func() { close(started[req.DeploymentID+":started"]) })
			<-g
		}
		if strings.HasPrefix(req.DeploymentID, "fail-") {
			return deploy.Permanentf("broken on purpose")
		}
		return nil
	}
	for k, v := range started {
		gates[k] = v
	}
	return gates
}

func TestAfterWaitsForItsDependency(t *testing.T) {
	e := newEnv(t)
	gates := blockDeploys(e, "dep-ok")
	e.submit("dep-ok", "app", "prod")
	<-gates["dep-ok:started"]
	sub, err := e.eng.Submit(e.ctx, []byte(withAfter(descriptorFor("child-ok", "app", "staging"), "dep-ok")), deploy.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := sub.Deployment
	if d.State != deploy.StateWaitingDependency {
		t.Fatalf("state %s, want WAITING_DEPENDENCY", d.State)
	}
	st := deploy.NewStatus(&d)
	if st.After == nil || st.After.Status != "waiting" || len(st.After.Dependencies) != 1 ||
		st.After.Dependencies[0].State != deploy.StatePending || st.After.ExpiresAt == nil {
		t.Fatalf("after = %+v", st.After)
	}
	// The waiting deploy holds no slot of staging: another deploy runs there.
	e.submit("other-staging", "app", "staging")
	e.waitState("other-staging", deploy.StateSuccess)
	if n := e.plugin.callCount("child-ok"); n != 0 {
		t.Fatalf("child ran before its dependency succeeded")
	}
	close(gates["dep-ok"])
	d2 := e.waitState("child-ok", deploy.StateSuccess)
	if st := deploy.NewStatus(d2); st.After.Status != "satisfied" {
		t.Fatalf("after = %+v", st.After)
	}
}

func TestFailedDependencyWakesItsDependents(t *testing.T) {
	// The safety poll is an hour: only the wake-up can end the wait in time.
	e := newEnvWith(t, envOptions{engineYAML: "chains: {poll_interval: 5m}"})
	gates := blockDeploys(e, "fail-dep")
	e.submit("fail-dep", "app", "prod")
	<-gates["fail-dep:started"]
	if _, err := e.eng.Submit(e.ctx, []byte(withAfter(descriptorFor("child-f", "app", "staging"), "fail-dep")), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	close(gates["fail-dep"])
	e.waitState("fail-dep", deploy.StateError)
	d := e.waitState("child-f", deploy.StateDependencyFailed)
	if !strings.Contains(d.Error, "fail-dep ended ERROR") {
		t.Fatalf("error = %q", d.Error)
	}
	if st := deploy.NewStatus(d); st.After.Status != "failed" || !strings.Contains(st.After.Reason, "fail-dep") {
		t.Fatalf("after = %+v", st.After)
	}
	if n := e.plugin.callCount("child-f"); n != 0 {
		t.Fatalf("a deploy whose dependency failed ran")
	}
	// A deploy can no longer wait for one that already failed.
	_, err := e.eng.Submit(e.ctx, []byte(withAfter(descriptorFor("child-late", "app", "staging"), "fail-dep")), deploy.SubmitOptions{})
	if deploy.ErrorCode(err) != deploy.EUNPROCESSABLE || !strings.Contains(deploy.ErrorMessage(err), "already ended ERROR") {
		t.Fatalf("after a failed deploy: %v", err)
	}
}

func TestAfterRefusals(t *testing.T) {
	e := newEnv(t)
	sub, err := e.eng.Submit(e.ctx, []byte(descriptorFor("dry-dep", "app", "qa")+"dryRun: true\n"), deploy.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.waitState(sub.Deployment.ID, deploy.StateSuccess)
	tests := map[string]string{
		"nope":    `no deploy "nope"`,
		"dry-dep": "is a dry-run",
	}
	for dep, want := range tests {
		_, err := e.eng.Submit(e.ctx, []byte(withAfter(descriptorFor("r-"+dep, "app", "staging"), dep)), deploy.SubmitOptions{})
		if deploy.ErrorCode(err) != deploy.EUNPROCESSABLE || !strings.Contains(deploy.ErrorMessage(err), want) {
			t.Errorf("after %s: %v, want UNPROCESSABLE with %q", dep, err, want)
		}
	}
	// A dependency that already succeeded: queued straight away.
	e.submit("done-dep", "app", "prod")
	e.waitState("done-dep", deploy.StateSuccess)
	sub, err = e.eng.Submit(e.ctx, []byte(withAfter(descriptorFor("r-done", "app", "staging"), "done-dep")), deploy.SubmitOptions{})
	if err != nil || sub.Deployment.State != deploy.StateEnqueued {
		t.Fatalf("after a succeeded deploy: %+v, %v", sub, err)
	}
	e.waitState("r-done", deploy.StateSuccess)
}

func TestScheduleAt(t *testing.T) {
	e := newEnv(t)
	at := time.Now().UTC().Add(1500 * time.Millisecond).Format(time.RFC3339Nano)
	sub, err := e.eng.Submit(e.ctx, []byte(descriptorFor("later", "app", "staging")+fmt.Sprintf("schedule: {at: %q}\n", at)), deploy.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Deployment.State != deploy.StateDelayed {
		t.Fatalf("state %s, want DELAYED", sub.Deployment.State)
	}
	d := e.waitState("later", deploy.StateSuccess)
	if d.StartedAt.Before(time.Now().Add(-time.Hour)) || d.StartedAt.Format(time.RFC3339Nano) < at {
		t.Fatalf("started at %v, before %s", d.StartedAt, at)
	}
}

// TestRestartWhileWaiting: a restart during DELAYED and WAITING_DEPENDENCY
// changes nothing: the waits resume and the deploys run once.
func TestRestartWhileWaiting(t *testing.T) {
	first := newEnvWith(t, envOptions{executorID: "restart"})
	gates := blockDeploys(first, "w-dep")
	first.submit("w-dep", "app", "prod")
	<-gates["w-dep:started"]
	if _, err := first.eng.Submit(first.ctx, []byte(withAfter(descriptorFor("w-child", "app", "staging"), "w-dep")), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC().Add(2 * time.Second).Format(time.RFC3339Nano)
	if _, err := first.eng.Submit(first.ctx, []byte(descriptorFor("w-later", "app", "qa")+fmt.Sprintf("schedule: {at: %q}\n", at)), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	close(gates["w-dep"])
	_ = first.eng.Shutdown(5 * time.Second)

	second := newEnvWith(t, envOptions{url: first.url, dir: first.dir, executorID: "restart", plugin: first.plugin})
	for _, id := range []string{"w-dep", "w-child", "w-later"} {
		second.waitState(id, deploy.StateSuccess)
	}
	for _, id := range []string{"w-child", "w-later"} {
		if n := second.plugin.callCount(id); n != 1 {
			t.Errorf("%s ran %d times, want once", id, n)
		}
	}
}

// TestAfterTimeout: a dependency that does not end within afterTimeout
// fails the wait (DEPENDENCY_FAILED with the reason). The minimum timeout
// is a minute, so this test runs beside the others.
func TestAfterTimeout(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, envOptions{engineYAML: "chains: {poll_interval: 5m}"})
	gates := blockDeploys(e, "slow-dep")
	t.Cleanup(func() { close(gates["slow-dep"]) })
	e.submit("slow-dep", "app", "prod")
	<-gates["slow-dep:started"]
	doc := withAfter(descriptorFor("impatient", "app", "staging"), "slow-dep") + "afterTimeout: 1m\n"
	if _, err := e.eng.Submit(e.ctx, []byte(doc), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	d := e.waitState("impatient", deploy.StateDependencyFailed)
	if !strings.Contains(d.Error, "expired") {
		t.Fatalf("error = %q", d.Error)
	}
}

func TestTooManyPluginOutputs(t *testing.T) {
	e := newEnv(t)
	e.plugin.outputs = map[string]string{}
	for i := 0; i <= deploy.MaxPluginOutputKeys; i++ {
		e.plugin.outputs[fmt.Sprintf("k%d", i)] = "v"
	}
	e.submit("chatty", "app", "staging")
	d := e.waitState("chatty", deploy.StateError)
	if s := step(d, "deploy"); s.Attempts != 1 || !strings.Contains(s.Error, "more than 64") {
		t.Fatalf("deploy step = %+v", s)
	}
}

// TestApprovalAfterDependencies: approvals are requested only once the
// dependencies have succeeded, so approvers are asked only for a deploy
// that can really start.
func TestApprovalAfterDependencies(t *testing.T) {
	gov := &fakeGovernor{decide: func(in deploy.GovernanceInput) (deploy.Decision, error) {
		if in.Environment != "staging" {
			return deploy.Decision{}, nil
		}
		return deploy.Decision{Rule: "staging-approval", Approvals: &deploy.ApprovalRequirement{Count: 1, Expiry: time.Hour}}, nil
	}}
	e := newEnvWith(t, envOptions{governor: gov})
	gates := blockDeploys(e, "gate-dep")
	e.submit("gate-dep", "app", "prod")
	<-gates["gate-dep:started"]
	sub, err := e.eng.Submit(e.ctx, []byte(withAfter(descriptorFor("gated", "app", "staging"), "gate-dep")), deploy.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Deployment.State != deploy.StateWaitingDependency || sub.Deployment.ApprovalExpiresAt != nil {
		t.Fatalf("submitted: %s, approval expires %v", sub.Deployment.State, sub.Deployment.ApprovalExpiresAt)
	}
	if _, err := e.eng.Approve(as(e, "token:ops1"), "gated", "too early"); deploy.ErrorCode(err) != deploy.ECONFLICT {
		t.Fatalf("approval while waiting for dependencies: %v, want CONFLICT", err)
	}
	close(gates["gate-dep"])
	d := e.waitState("gated", deploy.StateAwaitingApproval)
	if d.ApprovalExpiresAt == nil {
		t.Fatal("no approval expiry once approvals were requested")
	}
	if _, err := e.eng.Approve(as(e, "token:ops1"), "gated", "ok"); err != nil {
		t.Fatal(err)
	}
	e.waitState("gated", deploy.StateSuccess)
}
