package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

func TestRolloutTable(t *testing.T) {
	at := func(s int) *time.Time { v := t0.Add(time.Duration(s) * time.Second); return &v }
	str := func(s string) *string { return &s }
	value := 0.023
	target := func(name, wave string, batch int, state deploy.StepState) deploy.RolloutTargetStatus {
		return deploy.RolloutTargetStatus{Name: name, Outcome: deploy.OutcomeTargeted, Wave: wave, Batch: batch, State: state}
	}
	// Three waves, the second baking: eu-1 passed its canary, eu-2 and eu-3
	// are done, the rest waits; us-9 is under maintenance.
	baking := func() *deploy.RolloutStatus {
		return &deploy.RolloutStatus{
			State: deploy.RolloutRunning, CurrentWave: str("eu"),
			Waves: []deploy.RolloutWaveStatus{
				{Name: "canary", State: deploy.WavePassed, Targets: []string{"eu-1"},
					Bake: &deploy.RolloutBake{Seconds: 120, Until: at(-60)}, Gate: &deploy.RolloutGate{State: deploy.GatePass,
						Checks: []deploy.RolloutGateCheck{{Name: "errors", State: deploy.GatePass, Value: &value}}}},
				{Name: "eu", State: deploy.WaveBaking, Targets: []string{"eu-2", "eu-3"}, Bake: &deploy.RolloutBake{Seconds: 120, Until: at(100)}},
				{Name: "rest", State: deploy.WavePending, Targets: []string{"us-1", "us-2"}, Bake: &deploy.RolloutBake{Seconds: 30}},
			},
			Targets: []deploy.RolloutTargetStatus{
				target("eu-1", "canary", 1, deploy.StepSuccess), target("eu-2", "eu", 1, deploy.StepSuccess), target("eu-3", "eu", 1, deploy.StepSuccess),
				target("us-1", "rest", 1, deploy.StepPending), target("us-2", "rest", 2, deploy.StepPending),
				{Name: "us-9", Outcome: deploy.OutcomeExcluded, State: deploy.StepSkipped},
			},
		}
	}
	tests := []struct {
		name   string
		change func(r *deploy.RolloutStatus)
		now    time.Time
		want   []string
	}{
		{
			name: "the second wave baking",
			now:  t0,
			want: []string{
				"Rollout: running, wave eu (2 of 3), 3/5 targets\n",
				"  WAVE      STATE    TARGETS  BAKE        GATE\n",
				"  canary    passed   1/1      2m00s       pass\n",
				"  eu        baking   2/2      1m40s left  -\n",
				"  rest      pending  0/2      30s         -\n",
				"  excluded  us-9     -        -           -\n",
			},
		},
		{
			name: "the bake's last seconds",
			now:  t0.Add(95500 * time.Millisecond),
			want: []string{"  eu        baking   2/2      4s left  -\n"},
		},
		{
			// The server's clock and ours may disagree: never a negative bake.
			name: "a bake already over by our clock",
			now:  t0.Add(5 * time.Minute),
			want: []string{"  eu        baking   2/2      0s left  -\n"},
		},
		{
			name: "a failed gate says why",
			now:  t0,
			change: func(r *deploy.RolloutStatus) {
				r.State, r.CurrentWave = deploy.RolloutAborted, nil
				r.Waves[1].State = deploy.WaveFailed
				r.Waves[1].Gate = &deploy.RolloutGate{State: deploy.GateFail, Checks: []deploy.RolloutGateCheck{
					{Name: "health", State: deploy.GatePass},
					{Name: "errors", State: deploy.GateFail, Value: &value, Detail: "0.023 is above max 0.01"},
				}}
				r.Waves[2].State = deploy.WaveSkipped
			},
			want: []string{
				"Rollout: aborted, 3/5 targets\n",
				"  eu        failed   2/2      2m00s  fail (errors: 0.023 is above max 0.01)\n",
				"  rest      skipped  0/2      30s    -\n",
			},
		},
		{
			name: "paused by a person",
			now:  t0,
			change: func(r *deploy.RolloutStatus) {
				r.State = deploy.RolloutPaused
				r.Waves[1].State = deploy.WavePaused
				r.Pause = &deploy.RolloutPauseStatus{Reason: "paused by oidc:ana", Since: *at(0), Until: *at(86400),
					By: str("oidc:ana"), MayResume: []string{"role:deployer", "group:sre"}}
			},
			want: []string{
				"Rollout: paused, wave eu (2 of 3), 3/5 targets\n",
				"Paused: paused by oidc:ana, since 2025-01-02T03:04:05Z; aborts in 24h00m, at 2025-01-03T03:04:05Z; paused by oidc:ana; may resume or abort: role:deployer, group:sre\n",
			},
		},
		{
			// The time left is counted from the server's until, as the bake's.
			name: "a pause's time left",
			now:  t0.Add(2*time.Hour + 18*time.Minute + 50*time.Second),
			change: func(r *deploy.RolloutStatus) {
				r.State, r.Waves[1].State = deploy.RolloutPaused, deploy.WavePaused
				r.Pause = &deploy.RolloutPauseStatus{Reason: "gate errors was inconclusive", Since: *at(0), Until: *at(86400)}
			},
			want: []string{"Paused: gate errors was inconclusive, since 2025-01-02T03:04:05Z; aborts in 21h41m, at 2025-01-03T03:04:05Z\n"},
		},
		{
			name: "a pause's last seconds",
			now:  t0.Add(86390500 * time.Millisecond),
			change: func(r *deploy.RolloutStatus) {
				r.State, r.Waves[1].State = deploy.RolloutPaused, deploy.WavePaused
				r.Pause = &deploy.RolloutPauseStatus{Reason: "gate errors was inconclusive", Since: *at(0), Until: *at(86400)}
			},
			want: []string{"; aborts in 9s, at 2025-01-03T03:04:05Z\n"},
		},
		{
			// Past its end by our clock: the server has not aborted it yet.
			name: "a pause already over by our clock",
			now:  t0.Add(25 * time.Hour),
			change: func(r *deploy.RolloutStatus) {
				r.State, r.Waves[1].State = deploy.RolloutPaused, deploy.WavePaused
				r.Pause = &deploy.RolloutPauseStatus{Reason: "gate errors was inconclusive", Since: *at(0), Until: *at(86400)}
			},
			want: []string{"; aborts in 0s, at 2025-01-03T03:04:05Z\n"},
		},
		{
			name: "a deferred wave and its targets",
			now:  t0,
			change: func(r *deploy.RolloutStatus) {
				r.State, r.CurrentWave = deploy.RolloutDeferred, str("rest")
				r.Waves[1].State = deploy.WavePassed
				r.Waves[2].State, r.Waves[2].DeferredUntil = deploy.WaveDeferred, at(3600)
				r.Targets[3].Outcome, r.Targets[4].Outcome = deploy.OutcomeDeferred, deploy.OutcomeDeferred
			},
			want: []string{
				"Rollout: deferred, wave rest (3 of 3), 3/5 targets\n",
				"  rest      deferred until 2025-01-02T04:04:05Z  0/2      30s    -\n",
			},
		},
		{
			// Text from the server never draws on the terminal.
			name: "a gate detail with control characters",
			now:  t0,
			change: func(r *deploy.RolloutStatus) {
				r.Waves[0].Gate = &deploy.RolloutGate{State: deploy.GateNoData, Checks: []deploy.RolloutGateCheck{
					{Name: "errors", State: deploy.GateNoData, Detail: "empty\x1b[2Jvector"}}}
			},
			want: []string{`no_data (errors: empty\x1b[2Jvector)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := baking()
			if tt.change != nil {
				tt.change(r)
			}
			var buf bytes.Buffer
			if err := rolloutTable(&buf, r, tt.now); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("lacks %q:\n%s", w, buf.String())
				}
			}
			if strings.Contains(buf.String(), "\x1b") {
				t.Errorf("an escape reached the terminal:\n%q", buf.String())
			}
		})
	}
}

// TestStatusTableRollout: `manent status` reads the rollout from the status
// JSON it prints with -o json, and says nothing of one a deploy lacks.
func TestStatusTableRollout(t *testing.T) {
	rollout := &deploy.RolloutStatus{State: deploy.RolloutCompleted,
		Waves:   []deploy.RolloutWaveStatus{{Name: "all", State: deploy.WavePassed, Targets: []string{"web-1"}}},
		Targets: []deploy.RolloutTargetStatus{{Name: "web-1", Outcome: deploy.OutcomeTargeted, Wave: "all", Batch: 1, State: deploy.StepSuccess}}}
	tests := []struct {
		name    string
		status  any
		want    []string
		notWant []string
	}{
		{
			name:   "with rollout",
			status: map[string]any{"id": "hello-1", "state": "SUCCESS", "rollout": rollout},
			want:   []string{"\nRollout: completed, 1/1 targets\n", "  all   passed  1/1      -     -\n", "\nSTEP "},
		},
		{name: "without rollout", status: map[string]any{"id": "hello-1", "state": "SUCCESS"}, notWant: []string{"Rollout", "WAVE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := deployment("hello-1", client.DeploymentStateSuccess)
			b, err := json.Marshal(tt.status)
			if err != nil {
				t.Fatal(err)
			}
			d.Status = b
			var buf bytes.Buffer
			if err := statusTable(&buf, &d, t0); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("lacks %q:\n%s", w, buf.String())
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(buf.String(), w) {
					t.Errorf("has %q:\n%s", w, buf.String())
				}
			}
		})
	}
}
