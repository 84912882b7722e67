package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/client"
)

// rolloutEvent is hello-1 with the rollout status given (JSON).
func rolloutEvent(state client.DeploymentState, rollout string) client.DeploymentDetail {
	return client.DeploymentDetail{Id: "hello-1", State: state, Status: json.RawMessage(`{"rollout":` + rollout + `}`)}
}

const (
	wavesRunning = `{"state":"running","current_wave":"canary","waves":[
 {"name":"canary","state":"running","targets":["eu-1"],"batches":[{"index":1,"targets":["eu-1"],"state":"RUNNING","started_at":"2025-01-02T03:04:05Z","finished_at":null}]},
 {"name":"rest","state":"pending","targets":["us-1","us-2"],"batches":[{"index":1,"targets":["us-1"],"state":"PENDING"},{"index":2,"targets":["us-2"],"state":"PENDING"}]}],
 "targets":[]}`
	wavesBaking = `{"state":"running","current_wave":"canary","waves":[
 {"name":"canary","state":"baking","targets":["eu-1"],"bake":{"seconds":120,"until":"2025-01-02T03:06:07Z"},"batches":[{"index":1,"targets":["eu-1"],"state":"SUCCESS","started_at":"2025-01-02T03:04:05Z","finished_at":"2025-01-02T03:04:07Z"}]},
 {"name":"rest","state":"pending","targets":["us-1","us-2"],"batches":[{"index":1,"targets":["us-1"],"state":"PENDING"},{"index":2,"targets":["us-2"],"state":"PENDING"}]}],
 "targets":[]}`
	wavesPaused = `{"state":"paused","current_wave":"rest","waves":[
 {"name":"canary","state":"passed","targets":["eu-1"],"gate":{"state":"pass","checks":[]},"batches":[{"index":1,"targets":["eu-1"],"state":"SUCCESS","started_at":"2025-01-02T03:04:05Z","finished_at":"2025-01-02T03:04:07Z"}]},
 {"name":"rest","state":"paused","targets":["us-1","us-2"],"batches":[{"index":1,"targets":["us-1"],"state":"SUCCESS","started_at":"2025-01-02T03:07:00Z","finished_at":"2025-01-02T03:07:01Z"},{"index":2,"targets":["us-2"],"state":"PENDING"}]}],
 "targets":[],"pause":{"reason":"paused by token:ci","since":"2025-01-02T03:07:01Z","until":"2025-01-03T03:07:01Z","by":"token:ci","may_resume":[]}}`
)

// TestProgressRollout: a followed deploy with a rollout shows, when not on
// a terminal, one line per batch as it starts and ends, the bake, the gates
// and a pause; on a terminal, one line per wave with a mark per batch.
func TestProgressRollout(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, false, 0, func() time.Time { return t0 })
	for _, r := range []string{wavesRunning, wavesRunning, wavesBaking, wavesPaused} {
		p.Update(rolloutEvent(client.DeploymentStatePending, r))
	}
	want := `deployment hello-1: PENDING
wave canary batch 1/1 (eu-1): RUNNING
rollout running
wave canary batch 1/1 (eu-1): SUCCESS (2.0s)
wave canary: baking until 2025-01-02T03:06:07Z
wave canary: passed, gates pass
wave rest batch 1/2 (us-1): SUCCESS (1.0s)
wave rest: paused
rollout paused: paused by token:ci; aborts at 2025-01-03T03:07:01Z unless resumed (manent rollout resume hello-1)
`
	if got := buf.String(); got != want {
		t.Fatalf("plain progress:\n%s\nwant:\n%s", got, want)
	}

	buf.Reset()
	live := newProgress(&buf, true, 120, func() time.Time { return time.Date(2025, 1, 2, 3, 5, 27, 0, time.UTC) })
	live.Update(rolloutEvent(client.DeploymentStatePending, wavesBaking))
	out := buf.String()
	for _, want := range []string{"rollout: running, wave canary (1 of 2), 0/0 targets", "▸ canary  baking    ✓  40s left", "  rest    pending   ○ ○"} {
		if !strings.Contains(out, want) {
			t.Errorf("live block %q lacks %q", out, want)
		}
	}

	// A pause in the live block counts down to its abort, as the bake does.
	buf.Reset()
	paused := newProgress(&buf, true, 120, func() time.Time { return time.Date(2025, 1, 2, 5, 25, 51, 0, time.UTC) })
	paused.Update(rolloutEvent(client.DeploymentStatePending, wavesPaused))
	if want := "  paused: paused by token:ci; aborts in 21h41m, at 2025-01-03T03:07:01Z"; !strings.Contains(buf.String(), want) {
		t.Errorf("live block %q lacks %q", buf.String(), want)
	}
}
