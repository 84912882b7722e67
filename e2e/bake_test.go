package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// rolloutStatus reads the status JSON with its rollout.
func (r *rig) rolloutStatus(id string) fleetStatus {
	r.t.Helper()
	body, code := r.get("/api/v1/deployments/" + id)
	if code != 200 {
		r.t.Fatalf("GET status of %s: %d %s", id, code, body)
	}
	var st fleetStatus
	if err := json.Unmarshal(body, &st); err != nil {
		r.t.Fatalf("status JSON of %s: %v\n%s", id, err, body)
	}
	return st
}

// waitRollout reads the status of a deploy at each of its events until ok
// holds, and returns that status.
func (r *rig) waitRollout(id, what string, ok func(fleetStatus) bool) fleetStatus {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var st fleetStatus
	for range r.events(ctx, id) {
		if st = r.rolloutStatus(id); ok(st) {
			return st
		}
		if terminal(st.State) {
			break
		}
	}
	r.t.Fatalf("deploy %s: never %s (last seen %s, rollout %+v)\nserver:\n%s", id, what, st.State, st.Rollout, r.srv.output())
	return fleetStatus{}
}

// rolloutEnv is an environment of n local targets t1..tn, the first in a
// wave of its own with the given bake, the others in a second wave of
// batches of one; gate is the YAML of one gate ("" for none).
func rolloutEnv(n int, bake, gate string) string {
	var b strings.Builder
	b.WriteString("plugin: local\ntargets:\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  - {path: targets/t%d, labels: {n: \"%d\"}}\n", i, i)
	}
	fmt.Fprintf(&b, `rollout:
  waves:
    - {name: first, select: {labels: {n: "1"}}, bake: %s}
    - {name: rest, batch: 1}
  bake: 0s
`, bake)
	if gate != "" {
		b.WriteString("  gates:\n    - " + gate + "\n")
	}
	b.WriteString("rollback:\n  enabled: true\n  on: [deploy, activation]\n")
	return b.String()
}

// TestBakeSurvivesSIGKILL: manent-server is killed with SIGKILL while the
// first wave bakes; once restarted, the rollout comes back to the same
// bake, whose recorded end does not move, no batch runs again, and the
// deploy ends SUCCESS with every target on the release.
func TestBakeSurvivesSIGKILL(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy", "activation"}, maxRecovery: 3})
	r.srv.start()
	r.artifact("1.0.0")
	r.env("prod", rolloutEnv(3, "4s", ""))
	id := r.submit(r.descriptor("bake-kill", "prod", "1.0.0", ""))

	// Baking, and the bake recorded (a wave whose batches are done shows
	// baking a moment before its bake's record says when it ends).
	baking := r.waitRollout(id, "baking its first wave", func(st fleetStatus) bool {
		if st.Rollout == nil || len(st.Rollout.Waves) != 2 {
			return false
		}
		w := st.Rollout.Waves[0]
		return w.State == "baking" && w.Bake != nil && w.Bake.Until != nil
	})
	first := baking.Rollout.Waves[0]
	if first.Bake == nil || first.Bake.Until == nil || first.Bake.Seconds != 4 {
		t.Fatalf("bake of the first wave %+v, want 4s with its end", first.Bake)
	}
	until := *first.Bake.Until
	started := first.Batches[0].StartedAt
	r.srv.kill()
	bakeEnd, err := time.Parse(time.RFC3339, until)
	if err != nil {
		t.Fatal(err)
	}
	if !time.Now().Before(bakeEnd) {
		t.Fatalf("killed at %s, after the bake's end %s: the kill must come during the bake", time.Now().UTC(), until)
	}
	r.srv.start()

	st := r.followToEnd(id)
	if st.State != "SUCCESS" {
		t.Fatalf("deploy %s after the restart, error %s\nserver:\n%s", st.State, st.errorText(), r.srv.output())
	}
	end := r.rolloutStatus(id)
	w := end.Rollout.Waves[0]
	if w.State != "passed" || w.Bake == nil || w.Bake.Until == nil || *w.Bake.Until != until {
		t.Errorf("first wave %s, bake %+v, want passed with the end recorded before the kill, %s", w.State, w.Bake, until)
	}
	if got := w.Batches[0].StartedAt; got == nil || started == nil || *got != *started {
		t.Errorf("first batch started at %v, then %v: it ran again", deref(started), deref(got))
	}
	// The bake's end was kept: the rollout went on no sooner than it.
	second := end.Rollout.Waves[1].Batches[0].StartedAt
	if second == nil {
		t.Fatalf("second wave never started: %+v", end.Rollout.Waves[1])
	}
	if at, err := time.Parse(time.RFC3339, *second); err != nil || at.Before(bakeEnd.Truncate(time.Second)) {
		t.Errorf("second wave started at %s, before the bake's end %s (%v)", *second, until, err)
	}
	for _, s := range end.Steps {
		if strings.HasPrefix(s.Name, "deploy[") || strings.HasPrefix(s.Name, "activation[") {
			if s.State != "SUCCESS" || s.Attempts != 1 {
				t.Errorf("%s: %s after %d attempt(s), want SUCCESS at the first", s.Name, s.State, s.Attempts)
			}
		}
	}
	for i := 1; i <= 3; i++ {
		target := r.target(fmt.Sprintf("targets/t%d", i))
		if j := journalLines(t, target); !slices.Equal(j, []string{"deploy 1.0.0", "activate 1.0.0"}) {
			t.Errorf("t%d: journal %v, want one deploy and one activation", i, j)
		}
		if cur := currentLink(t, target); cur != "releases/1.0.0" {
			t.Errorf("t%d: current -> %q", i, cur)
		}
	}
}
