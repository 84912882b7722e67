package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"manent.dev/manent/deploy"
)

// statusRollout reads the rollout section of a status JSON: the table and
// -o json then show the same rollout. nil for a deploy without rollout.
func statusRollout(status json.RawMessage) (*deploy.RolloutStatus, error) {
	if len(status) == 0 {
		return nil, nil
	}
	var st struct {
		Rollout *deploy.RolloutStatus `json:"rollout"`
	}
	if err := json.Unmarshal(status, &st); err != nil {
		return nil, fmt.Errorf("decode the rollout of the status: %w", err)
	}
	return st.Rollout, nil
}

// rolloutTable prints where a rollout stands: a summary line, then one line
// per wave (state, targets done of its targets, what is left of its bake,
// its gate), the targets it leaves out, and why it is paused. now is the
// clock the ends of the bake and of a pause are counted against.
func rolloutTable(w io.Writer, r *deploy.RolloutStatus, now time.Time) error {
	if _, err := fmt.Fprintf(w, "Rollout: %s\n", deploy.EscapeText(rolloutSummary(r))); err != nil {
		return err
	}
	states := make(map[string]deploy.StepState, len(r.Targets))
	for _, t := range r.Targets {
		states[t.Name] = t.State
	}
	tw := newTable(w)
	row(tw, "  WAVE", "STATE", "TARGETS", "BAKE", "GATE")
	for _, wave := range r.Waves {
		done := 0
		for _, name := range wave.Targets {
			if states[name] == deploy.StepSuccess {
				done++
			}
		}
		row(tw, "  "+wave.Name, waveState(wave), fmt.Sprintf("%d/%d", done, len(wave.Targets)), bakeLeft(wave, now), gateText(wave.Gate))
	}
	for _, t := range r.Targets {
		if t.Outcome == deploy.OutcomeTargeted || t.Outcome == deploy.OutcomeDeferred {
			continue
		}
		row(tw, "  "+string(t.Outcome), t.Name, "", "", "")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if p := r.Pause; p != nil {
		line := fmt.Sprintf("Paused: %s, since %s; %s", p.Reason, timestamp(p.Since), pauseLeft(p, now))
		if p.By != nil {
			line += "; paused by " + *p.By
		}
		if len(p.MayResume) > 0 {
			line += "; may resume or abort: " + strings.Join(p.MayResume, ", ")
		}
		if _, err := fmt.Fprintln(w, deploy.EscapeText(line)); err != nil {
			return err
		}
	}
	return nil
}

// rolloutSummary is "running, wave eu (2 of 3), 3/5 targets": the state, the
// wave it is on, and the targets done of those it deploys.
func rolloutSummary(r *deploy.RolloutStatus) string {
	parts := []string{string(r.State)}
	if r.CurrentWave != nil {
		i := slices.IndexFunc(r.Waves, func(w deploy.RolloutWaveStatus) bool { return w.Name == *r.CurrentWave })
		parts = append(parts, fmt.Sprintf("wave %s (%d of %d)", *r.CurrentWave, i+1, len(r.Waves)))
	}
	done, total := 0, 0
	for _, t := range r.Targets {
		if t.Outcome != deploy.OutcomeTargeted && t.Outcome != deploy.OutcomeDeferred {
			continue
		}
		total++
		if t.State == deploy.StepSuccess {
			done++
		}
	}
	return strings.Join(append(parts, fmt.Sprintf("%d/%d targets", done, total)), ", ")
}

// waveState is the wave's state as the status JSON spells it; a deferred
// wave says until when.
func waveState(w deploy.RolloutWaveStatus) string {
	if w.State == deploy.WaveDeferred && w.DeferredUntil != nil {
		return string(w.State) + " until " + timestamp(*w.DeferredUntil)
	}
	return string(w.State)
}

// bakeLeft is what remains of a bake under way ("1m40s left", never below
// zero), else the bake's length ("" for none).
func bakeLeft(w deploy.RolloutWaveStatus, now time.Time) string {
	b := w.Bake
	if b == nil {
		return ""
	}
	if w.State == deploy.WaveBaking && b.Until != nil {
		return countdown(*b.Until, now) + " left"
	}
	return seconds(b.Seconds)
}

// pauseLeft is the time a pause has left before it times out into an
// abort, counted from the server's until as a bake is, and that time:
// "aborts in 23h41m, at 2025-01-03T03:04:05Z".
func pauseLeft(p *deploy.RolloutPauseStatus, now time.Time) string {
	return fmt.Sprintf("aborts in %s, at %s", countdown(p.Until, now), timestamp(p.Until))
}

// countdown is what is left until t by now's clock, never below zero (the
// server's clock and ours may disagree): "4s", "1m40s", "23h41m".
func countdown(t, now time.Time) string {
	left := max(0, t.Sub(now)).Truncate(time.Second)
	if left < time.Minute {
		return fmt.Sprintf("%ds", int(left.Seconds()))
	}
	return duration(left)
}

// gateText is the gate's result, with the detail of the first check that
// did not pass.
func gateText(g *deploy.RolloutGate) string {
	if g == nil {
		return ""
	}
	for _, c := range g.Checks {
		if c.State != deploy.GatePass {
			return fmt.Sprintf("%s (%s: %s)", g.State, c.Name, c.Detail)
		}
	}
	return string(g.State)
}
