package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/client"
)

func step(name string, pos int, state client.StepState, attempts, ms int, errMsg string) client.StepDetail {
	return client.StepDetail{Name: name, Position: pos, State: state, Attempts: attempts, DurationMs: ms, Error: errMsg}
}

func TestProgressPlain(t *testing.T) {
	d := func(state client.DeploymentState, steps ...client.StepDetail) client.DeploymentDetail {
		dd := client.DeploymentDetail{Id: "hello-1", State: state, Steps: steps}
		if client.Terminal(state) {
			dd.StartedAt, dd.FinishedAt = t0, t0.Add(3200*time.Millisecond)
		}
		return dd
	}
	tests := []struct {
		name   string
		events []client.DeploymentDetail
		want   string
	}{
		{
			name: "success",
			events: []client.DeploymentDetail{
				d(client.DeploymentStateEnqueued),
				d(client.DeploymentStatePending, step("config", 0, client.StepStateRunning, 1, 10, "")),
				// The same state again (a log event): nothing new to print.
				d(client.DeploymentStatePending, step("config", 0, client.StepStateRunning, 1, 90, "")),
				d(client.DeploymentStatePending, step("config", 0, client.StepStateSuccess, 1, 120, ""),
					step("deploy", 1, client.StepStateRunning, 1, 0, "")),
				d(client.DeploymentStateSuccess, step("config", 0, client.StepStateSuccess, 1, 120, ""),
					step("deploy", 1, client.StepStateSuccess, 1, 1200, "")),
			},
			want: `deployment hello-1: ENQUEUED
deployment hello-1: PENDING
step config: RUNNING
step config: SUCCESS (120ms)
step deploy: RUNNING
step deploy: SUCCESS (1.2s)
deployment hello-1: SUCCESS (3.2s)
`,
		},
		{
			name: "retries then error",
			events: []client.DeploymentDetail{
				d(client.DeploymentStatePending, step("qa", 0, client.StepStateRunning, 1, 0, "")),
				d(client.DeploymentStatePending, step("qa", 0, client.StepStateRunning, 2, 0, "")),
				// An update can skip a state: the step is shown as it is now.
				func() client.DeploymentDetail {
					x := d(client.DeploymentStateError, step("qa", 0, client.StepStateError, 3, 2500, "sha256 mismatch"),
						step("deploy", 1, client.StepStateSkipped, 0, 0, ""))
					x.Error = "step qa failed"
					return x
				}(),
			},
			want: `deployment hello-1: PENDING
step qa: RUNNING
step qa: RUNNING (attempt 2)
step qa: ERROR (2.5s): sha256 mismatch
step deploy: SKIPPED
deployment hello-1: ERROR (3.2s): step qa failed
`,
		},
		{
			// The server's order: a checkpoint before its step, the
			// compensations after the pipeline, in the order they ran.
			name: "checkpoint, failure and rollback",
			events: []client.DeploymentDetail{
				d(client.DeploymentStatePending, step("checkpoint:deploy", 1, client.StepStateRunning, 1, 0, ""),
					step("deploy", 1, client.StepStatePending, 0, 0, "")),
				d(client.DeploymentStatePending, step("checkpoint:deploy", 1, client.StepStateSuccess, 1, 30, ""),
					step("deploy", 1, client.StepStateSuccess, 1, 900, ""),
					step("post-test", 2, client.StepStateError, 1, 40, "health: 404 Not Found")),
				func() client.DeploymentDetail {
					x := d(client.DeploymentStateError, step("checkpoint:deploy", 1, client.StepStateSuccess, 1, 30, ""),
						step("deploy", 1, client.StepStateSuccess, 1, 900, ""),
						step("post-test", 2, client.StepStateError, 1, 40, "health: 404 Not Found"))
					x.Error = "step post-test failed"
					x.Rollback = &client.RollbackDetail{State: client.RollbackStateCompleted,
						Steps: []client.StepDetail{step("rollback:deploy", 500, client.StepStateSuccess, 1, 300, "")}}
					return x
				}(),
			},
			want: `deployment hello-1: PENDING
step checkpoint:deploy: RUNNING
step checkpoint:deploy: SUCCESS (30ms)
step deploy: SUCCESS (900ms)
step post-test: ERROR (40ms): health: 404 Not Found
step rollback:deploy: SUCCESS (300ms)
deployment hello-1: ERROR (3.2s): step post-test failed; rollback completed
`,
		},
		{
			name: "waits for its dependencies, one moves on, one fails",
			events: []client.DeploymentDetail{
				waiting(client.DeploymentStateWaitingDependency, client.DeploymentStatePending, client.DeploymentStatePending),
				// A dependency moved on: the deploy still waits, for less.
				waiting(client.DeploymentStateWaitingDependency, client.DeploymentStateSuccess, client.DeploymentStatePending),
				waiting(client.DeploymentStateWaitingDependency, client.DeploymentStateSuccess, client.DeploymentStatePending),
				func() client.DeploymentDetail {
					x := d(client.DeploymentStateDependencyFailed)
					x.Error = "dependency did not succeed: net-1 ended ERROR"
					return x
				}(),
			},
			want: `deployment hello-1: WAITING_DEPENDENCY: waits for db-1 PENDING, net-1 PENDING (until 2025-01-03T03:04:05Z)
deployment hello-1: waits for db-1 SUCCESS, net-1 PENDING (until 2025-01-03T03:04:05Z)
deployment hello-1: DEPENDENCY_FAILED (3.2s): dependency did not succeed: net-1 ended ERROR
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := newProgress(&buf, false, 0, func() time.Time { return t0 })
			for _, e := range tt.events {
				p.Update(e)
			}
			p.Tick()
			p.Finish()
			if buf.String() != tt.want {
				t.Fatalf("got:\n%s\nwant:\n%s", buf.String(), tt.want)
			}
		})
	}
}

// waiting is hello-1 in state, waiting for db-1 and net-1 in the states given.
func waiting(state, db, net client.DeploymentState) client.DeploymentDetail {
	return client.DeploymentDetail{Id: "hello-1", State: state, After: &client.AfterDetail{
		Status: "waiting", ExpiresAt: t0.Add(24 * time.Hour),
		Dependencies: []client.Dependency{{Id: "db-1", State: db}, {Id: "net-1", State: net}},
	}}
}

func TestWaitSummary(t *testing.T) {
	at := t0.Add(2 * time.Hour)
	delayed := waiting(client.DeploymentStateDelayed, client.DeploymentStateSuccess, "")
	tests := []struct {
		name string
		d    client.DeploymentDetail
		at   time.Time
		want string
	}{
		{name: "delayed", d: client.DeploymentDetail{State: client.DeploymentStateDelayed}, at: at, want: "starts at 2025-01-02T05:04:05Z"},
		{name: "delayed and after, a dependency removed", d: delayed, at: at,
			want: "starts at 2025-01-02T05:04:05Z; waits for db-1 SUCCESS, net-1 removed"},
		{name: "running", d: waiting(client.DeploymentStatePending, client.DeploymentStateSuccess, client.DeploymentStateSuccess), at: at},
		{name: "after satisfied, awaiting approval", d: func() client.DeploymentDetail {
			x := waiting(client.DeploymentStateAwaitingApproval, client.DeploymentStateSuccess, client.DeploymentStateSuccess)
			x.After.Status = "satisfied"
			return x
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := waitSummary(tt.d, tt.at); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestProgressLiveWaiting(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, true, 200, func() time.Time { return t0 })
	p.Update(waiting(client.DeploymentStateWaitingDependency, client.DeploymentStatePending, client.DeploymentStateSuccess))
	if out := buf.String(); !strings.Contains(out, "WAITING_DEPENDENCY") || !strings.Contains(out, "  waits for db-1 PENDING, net-1 SUCCESS") {
		t.Fatalf("live output %q", out)
	}
}

func TestProgressLive(t *testing.T) {
	now := t0
	var buf bytes.Buffer
	p := newProgress(&buf, true, 40, func() time.Time { return now })
	p.Update(client.DeploymentDetail{Id: "hello-1", State: client.DeploymentStatePending,
		Steps: []client.StepDetail{step("config", 0, client.StepStateSuccess, 1, 100, ""), step("deploy", 1, client.StepStateRunning, 1, 1000, "")}})
	now = now.Add(500 * time.Millisecond)
	p.Tick()
	out := buf.String()
	// Three lines drawn, then moved up over and redrawn with the running
	// step 0.5s further on.
	if !strings.Contains(out, "\x1b[3A") || !strings.Contains(out, "1.5s") || !strings.Contains(out, "✓ config") {
		t.Fatalf("live output %q", out)
	}
	p.Note("lost the connection")
	p.Update(client.DeploymentDetail{Id: "hello-1", State: client.DeploymentStateSuccess,
		Steps: []client.StepDetail{step("config", 0, client.StepStateSuccess, 1, 100, ""), step("deploy", 1, client.StepStateSuccess, 1, 1700, "")}})
	p.Finish()
	final := buf.String()[len(out):]
	if !strings.Contains(final, "lost the connection\n") || !strings.Contains(final, "✓ deployment hello-1  SUCCESS") {
		t.Fatalf("final output %q", final)
	}
	for _, l := range strings.Split(buf.String(), "\n") {
		if vis := strings.TrimPrefix(l, "\r\x1b[2K"); len([]rune(vis)) >= 40 && !strings.Contains(vis, "\x1b") {
			t.Errorf("line wider than the terminal: %q", vis)
		}
	}
}
