package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"manent.dev/manent/deploy"
)

// waitWithin blocks until the deploy satisfies cond, woken by its events,
// for at most d; the last reading and false when d passed.
func (e *env) waitWithin(id string, d time.Duration, cond func(*deploy.Deployment) bool) (*deploy.Deployment, bool) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, d)
	defer cancel()
	ch := e.events.Subscribe(ctx, id)
	for {
		got, err := e.store.Get(ctx, id)
		if err == nil && cond(got) {
			return got, true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return got, false
		}
	}
}

// TestWaitingRolloutsLeaveTheirWorkerSlot: a rollout that waits (for a
// wave's approval, in a bake, in a pause, deferred by a freeze window)
// holds its environment's slot, never one of its worker's: with
// queues.worker_concurrency 1, a deploy of another environment runs while
// it waits.
func TestWaitingRolloutsLeaveTheirWorkerSlot(t *testing.T) {
	tests := []struct {
		name string
		// env is the environment of the rollout and its configuration:
		// web's on the local plugin, app's on the test plugin.
		app, env, config string
		waiting          func(st *deploy.RolloutStatus) bool
	}{
		{
			name: "a wave's approval", app: "web", env: "slotapproval",
			config:  "targets: [{path: TARGET/a}]\nrollout:\n  waves: [{name: one, approval: true}]\n",
			waiting: func(st *deploy.RolloutStatus) bool { return st.State == deploy.RolloutAwaitingApproval },
		},
		{
			name: "a bake", app: "web", env: "slotbake",
			config: "targets: [{path: TARGET/a}, {path: TARGET/b}]\nrollout:\n  waves: [{name: one, count: 1, bake: 1h}, {name: two}]\n",
			waiting: func(st *deploy.RolloutStatus) bool {
				return st.Waves[0].State == deploy.WaveBaking && st.Waves[0].Bake.Until != nil
			},
		},
		{
			// The test plugin fails the first batch, under on_failure: pause.
			name: "a pause", app: "app", env: "slotpause",
			config:  "targets: [{path: /t/broken}, {path: /t/b}]\nrollout:\n  waves: [{name: all, batch: 1}]\n  on_failure: pause\n",
			waiting: func(st *deploy.RolloutStatus) bool { return st.State == deploy.RolloutPaused },
		},
		{
			name: "a deferral", app: "web", env: "slotdefer",
			config: "targets: [{path: TARGET/a, labels: {region: us}}, {path: TARGET/b, labels: {region: eu}}]\n" +
				"rollout:\n  waves: [{name: us, select: {labels: {region: us}}}, {name: eu}]\n",
			waiting: func(st *deploy.RolloutStatus) bool { return st.State == deploy.RolloutDeferred },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Now().UTC()
			e := newEnvWith(t, envOptions{workerConcurrency: 1, rules: true, engineYAML: fmt.Sprintf(`governance:
  freezes:
    - name: eu-maintenance
      match: {environment: slotdefer}
      targets: {labels: {region: eu}}
      absolute:
        - {from: %q, to: %q}
`, now.Add(-time.Hour).Format(time.RFC3339), now.Add(time.Hour).Format(time.RFC3339))})
			e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
				if len(req.Targets) == 1 && req.Targets[0].Path == "/t/broken" {
					return deploy.Permanentf("the target is broken")
				}
				return nil
			}
			plugin := map[string]string{"web": "local", "app": "test"}[tt.app]
			config := strings.ReplaceAll(tt.config, "TARGET", filepath.Join(e.dir, "targets", tt.env))
			writeFile(t, filepath.Join(e.dir, "envconfig/demo", tt.app, tt.env+".yml"), "plugin: "+plugin+"\n"+config)
			if tt.app == "web" {
				writeRelease(t, e.dir, "1.0.0")
				e.submitWeb("waits", tt.env)
			} else {
				e.submit("waits", tt.app, tt.env)
			}
			if d, ok := e.waitWithin("waits", time.Minute, func(d *deploy.Deployment) bool {
				st := d.RolloutStatus()
				return d.State.Terminal() || (st != nil && tt.waiting(st))
			}); !ok || d.State.Terminal() {
				t.Fatalf("the rollout never waited in %s: %s (%s)", tt.name, d.State, d.Error)
			}
			// Another environment, another partition: the worker's only slot
			// is free for it.
			e.submit("other", "app", "staging")
			d, ok := e.waitWithin("other", 30*time.Second, func(d *deploy.Deployment) bool { return d.State.Terminal() })
			if !ok {
				t.Fatalf("app/staging's deploy is still %s after 30s: the rollout waiting in %s holds the worker's only slot", d.State, tt.name)
			}
			if d.State != deploy.StateSuccess {
				t.Fatalf("app/staging's deploy ended %s (%s)", d.State, d.Error)
			}
		})
	}
}

// submitWeb submits the release 1.0.0 of web to environment.
func (e *env) submitWeb(id, environment string) {
	e.t.Helper()
	if _, err := e.eng.Submit(e.ctx, []byte(webDescriptor(id, environment, "1.0.0", "")), deploy.SubmitOptions{}); err != nil {
		e.t.Fatalf("submit %s: %v", id, err)
	}
}

// TestWorkerConcurrencyBoundsTheWork: queues.worker_concurrency still
// bounds the deploys a worker works on at once: with 1, a deploy of
// another environment starts only once the one at work has ended.
func TestWorkerConcurrencyBoundsTheWork(t *testing.T) {
	e := newEnvWith(t, envOptions{workerConcurrency: 1})
	started, release := make(chan struct{}), make(chan struct{})
	e.plugin.deploy = func(ctx context.Context, req deploy.PluginRequest) error {
		if req.DeploymentID != "busy" {
			return nil
		}
		close(started)
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	e.submit("busy", "app", "staging")
	<-started
	e.submit("next", "app", "prod")
	close(release)
	busy := e.waitState("busy", deploy.StateSuccess)
	next := e.waitState("next", deploy.StateSuccess)
	if next.StartedAt == nil || busy.FinishedAt == nil || next.StartedAt.Before(*busy.FinishedAt) {
		t.Fatalf("next started at %v, before busy ended at %v: two deploys at work on a worker of concurrency 1",
			next.StartedAt, busy.FinishedAt)
	}
}

// TestPauseAskedDuringADeferralHoldsTheWave: a pause asked while a wave
// waits for a freeze window to end holds the wave once the window ends:
// the rollout pauses before the wave's first batch, and goes on when it
// is resumed.
func TestPauseAskedDuringADeferralHoldsTheWave(t *testing.T) {
	until := time.Now().UTC().Add(5 * time.Second).Truncate(time.Second)
	f := deferFleet(t, "dpause", until, "")
	f.submitTo("dp", "dpause", "1.0.0")
	f.wait("dp", func(d *deploy.Deployment) bool {
		if d.State.Terminal() {
			t.Fatalf("deploy ended %s (%s)", d.State, d.Error)
		}
		st := d.RolloutStatus()
		return st != nil && st.State == deploy.RolloutDeferred
	})
	if _, err := f.eng.PauseRollout(f.ctx, "dp", "hold eu after its maintenance"); err != nil {
		t.Fatalf("pause while deferred: %v", err)
	}
	d := f.wait("dp", func(d *deploy.Deployment) bool {
		st := d.RolloutStatus()
		return d.State.Terminal() || (st != nil && (st.State == deploy.RolloutPaused || st.Waves[1].Batches[0].StartedAt != nil))
	})
	st := d.RolloutStatus()
	if b := st.Waves[1].Batches[0]; b.StartedAt != nil || st.State != deploy.RolloutPaused {
		t.Fatalf("rollout %s, wave eu's batch started at %v (deploy %s): a pause was asked while the wave was deferred", st.State, b.StartedAt, d.State)
	}
	if st.Pause == nil || deref(st.Pause.By) != "token:ci" {
		t.Fatalf("pause %+v: want the person's", st.Pause)
	}
	if _, err := f.eng.ResumeRollout(f.ctx, "dp", "go", ""); err != nil {
		t.Fatalf("resume: %v", err)
	}
	d = f.waitState("dp", deploy.StateSuccess)
	if b := d.RolloutStatus().Waves[1].Batches[0]; b.StartedAt == nil || b.StartedAt.Before(until) {
		t.Fatalf("wave eu's batch started at %v, want after the window's end %v", b.StartedAt, until)
	}
}

// TestRolloutRequestStoredWithoutItsWakeIsSeen: a request stored without
// the wake-up that commits with it (a server of an earlier version sent it
// after its commit, and died in between) is still read, within
// engine.rollout_look_interval, by a rollout that waits in a pause for an
// hour.
func TestRolloutRequestStoredWithoutItsWakeIsSeen(t *testing.T) {
	e := newEnvWith(t, envOptions{engineYAML: "engine: {rollout_look_interval: 1s}\n"})
	pausedFleet(t, e, "nowake", "  on_failure: pause\n  pause_timeout: 1h\n")
	e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		if len(req.Targets) == 1 && req.Targets[0].Path == "/t/a" {
			return deploy.Permanentf("a is broken")
		}
		return nil
	}
	e.submit("nowake", "app", "nowake")
	e.waitPaused("nowake")
	// Once the pause looked a first time, only a wake-up or its own next
	// look makes it read the deploy again.
	e.waitDBOSSteps("nowake", "manent.rollout.pause.look", 1)
	req := deploy.RolloutRequest{Action: deploy.RolloutActionResume, By: "token:ci", At: time.Now().UTC()}
	if err := e.store.RequestRollout(e.ctx, "nowake", req, deploy.RolloutReplaces(deploy.RolloutActionResume), map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	d, ok := e.waitWithin("nowake", 30*time.Second, func(d *deploy.Deployment) bool {
		return d.RolloutStatus().State != deploy.RolloutPaused
	})
	if !ok {
		st := d.RolloutStatus()
		t.Fatalf("30s after a stored resume the rollout is still paused (request %+v, pause until %v)", st.Request, st.Pause.Until)
	}
}

// waitDBOSSteps waits until DBOS recorded at least n steps named name of
// workflow id: a moment the read model does not show.
func (e *env) waitDBOSSteps(id, name string, n int) {
	e.t.Helper()
	conn, err := pgx.Connect(e.ctx, e.url)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	deadline := time.Now().Add(time.Minute)
	for {
		var got int
		if err := conn.QueryRow(e.ctx, `SELECT count(*) FROM dbos.operation_outputs WHERE workflow_uuid = $1 AND function_name = $2`,
			id, name).Scan(&got); err != nil {
			e.t.Fatal(err)
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("DBOS recorded %d step(s) %s of %s in a minute, want %d", got, name, id, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBakeKeepsTheStartItRecorded: the bake ends when its record says,
// even when its start is written again: here a worker stops once the bake
// is recorded, and DBOS's records from the bake's start on are removed (as
// a workflow an earlier version recorded could leave them, the record of
// the start written and DBOS's not); the worker that takes it up again
// bakes until the first start's end, not a whole bake from its own start.
func TestBakeKeepsTheStartItRecorded(t *testing.T) {
	const bake = 15 * time.Second
	first := newEnvWith(t, envOptions{executorID: "bake"})
	writeRelease(t, first.dir, "1.0.0")
	dirs := []string{filepath.Join(first.dir, "targets/bake/a"), filepath.Join(first.dir, "targets/bake/b")}
	writeFile(t, filepath.Join(first.dir, "envconfig/demo/web/bake.yml"), fmt.Sprintf(`plugin: local
targets: [{path: %q}, {path: %q}]
rollout:
  waves: [{name: one, count: 1, bake: %s}, {name: two}]
`, dirs[0], dirs[1], bake))
	first.submitWeb("baked", "bake")
	d := first.wait("baked", func(d *deploy.Deployment) bool {
		st := d.RolloutStatus()
		return st != nil && st.Waves[0].State == deploy.WaveBaking && st.Waves[0].Bake.Until != nil
	})
	until := *d.RolloutStatus().Waves[0].Bake.Until
	_ = first.eng.Shutdown(5 * time.Second)
	conn, err := pgx.Connect(context.Background(), first.url)
	if err != nil {
		t.Fatal(err)
	}
	tag, err := conn.Exec(context.Background(), `DELETE FROM dbos.operation_outputs WHERE workflow_uuid = 'baked'
		AND function_id >= (SELECT min(function_id) FROM dbos.operation_outputs WHERE workflow_uuid = 'baked' AND function_name = 'manent.rollout.bake')`)
	_ = conn.Close(context.Background())
	if err != nil || tag.RowsAffected() == 0 {
		t.Fatalf("delete the bake's outputs: %v, %d rows", err, tag.RowsAffected())
	}
	// The worker is down a while: a bake started again at its return would
	// end that much later.
	time.Sleep(4 * time.Second)
	second := newEnvWith(t, envOptions{url: first.url, dir: first.dir, executorID: "bake", plugin: first.plugin})
	d = second.waitState("baked", deploy.StateSuccess)
	w := d.RolloutStatus().Waves[0]
	if w.Bake.Until == nil || !w.Bake.Until.Equal(until) {
		t.Fatalf("bake until %v after the restart, want %v", w.Bake.Until, until)
	}
	two := d.RolloutStatus().Waves[1].Batches[0].StartedAt
	if late := two.Sub(until); late > 2*time.Second {
		t.Fatalf("wave two started %v after the bake's end %v: the bake started again from the restart", late, until)
	}
}
