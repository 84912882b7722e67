package main

import (
	"fmt"
	"strings"
	"time"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

// rolloutProgress follows the rollout of a deploy for progress: in plain
// mode one line per change of a batch, a wave or the rollout as a whole
// ("wave eu batch 1/2 (eu-2, eu-3): SUCCESS (2.1s)"); in live mode a
// summary and one line per wave with a mark per batch.
type rolloutProgress struct {
	r *deploy.RolloutStatus
	// printed is the last line printed per batch, wave and the rollout,
	// in plain mode.
	printed map[string]string
}

// update reads the rollout of d's status; an unreadable one is shown as
// none rather than stopping the follow.
func (rp *rolloutProgress) update(d client.DeploymentDetail) {
	r, err := statusRollout(d.Status)
	if err != nil {
		r = nil
	}
	rp.r = r
}

// plainLines are the lines of what changed since the last call.
func (rp *rolloutProgress) plainLines(id string) []string {
	r := rp.r
	if r == nil {
		return nil
	}
	if rp.printed == nil {
		rp.printed = map[string]string{}
	}
	var out []string
	emit := func(key, line string) {
		if rp.printed[key] != line {
			rp.printed[key] = line
			out = append(out, line)
		}
	}
	for i, w := range r.Waves {
		for _, b := range w.Batches {
			if b.State == deploy.StepPending {
				continue
			}
			line := fmt.Sprintf("wave %s batch %d/%d (%s): %s", w.Name, b.Index, len(w.Batches), strings.Join(b.Targets, ", "), b.State)
			if b.StartedAt != nil && b.FinishedAt != nil {
				line += " (" + duration(b.FinishedAt.Sub(*b.StartedAt)) + ")"
			}
			emit(fmt.Sprintf("b%d/%d", i, b.Index), line)
		}
		if line := waveLine(w); line != "" {
			emit(fmt.Sprintf("w%d", i), line)
		}
	}
	if p := r.Pause; p != nil {
		line := fmt.Sprintf("rollout paused: %s; aborts at %s unless resumed (manent rollout resume %s)", p.Reason, timestamp(p.Until), id)
		emit("rollout", line)
	} else if r.State != deploy.RolloutPending {
		emit("rollout", "rollout "+string(r.State))
	}
	return out
}

// waveLine is the line of a wave's state that is worth a line of its own:
// its bake, its gates, a pause, a deferral; "" for the others (its batches
// say them).
func waveLine(w deploy.RolloutWaveStatus) string {
	switch w.State {
	case deploy.WaveBaking:
		if w.Bake != nil && w.Bake.Until != nil {
			return fmt.Sprintf("wave %s: baking until %s", w.Name, timestamp(*w.Bake.Until))
		}
	case deploy.WaveGating, deploy.WavePaused, deploy.WaveAwaitingApproval, deploy.WaveRolledBack, deploy.WaveSkipped:
		return fmt.Sprintf("wave %s: %s", w.Name, w.State)
	case deploy.WaveDeferred:
		return fmt.Sprintf("wave %s: %s", w.Name, waveState(w))
	case deploy.WavePassed, deploy.WaveFailed:
		line := fmt.Sprintf("wave %s: %s", w.Name, w.State)
		if g := gateText(w.Gate); g != "" {
			line += ", gates " + g
		}
		return line
	}
	return ""
}

// liveLines are the lines of the live block: the summary, then one line
// per wave with its state, its bake's countdown and a mark per batch, and
// a pause with the time it has left.
func (rp *rolloutProgress) liveLines(now time.Time) []string {
	r := rp.r
	if r == nil {
		return nil
	}
	lines := []string{"  rollout: " + rolloutSummary(r)}
	width := 0
	for _, w := range r.Waves {
		width = max(width, len(w.Name))
	}
	for _, w := range r.Waves {
		marks := make([]string, len(w.Batches))
		for i, b := range w.Batches {
			marks[i] = batchMark(b.State)
		}
		mark := "  "
		if r.CurrentWave != nil && *r.CurrentWave == w.Name {
			mark = "▸ "
		}
		l := fmt.Sprintf("  %s%-*s  %-9s %s", mark, width, w.Name, waveState(w), strings.Join(marks, " "))
		if w.State == deploy.WaveBaking {
			l += "  " + bakeLeft(w, now)
		}
		lines = append(lines, strings.TrimRight(l, " "))
	}
	if p := r.Pause; p != nil {
		lines = append(lines, "  paused: "+p.Reason+"; "+pauseLeft(p, now))
	}
	return lines
}

func batchMark(s deploy.StepState) string {
	switch s {
	case deploy.StepSuccess:
		return "✓"
	case deploy.StepRunning:
		return "●"
	case deploy.StepError:
		return "✗"
	case deploy.TargetRolledBack:
		return "↺"
	case deploy.StepSkipped, deploy.StepCancelled:
		return "–"
	}
	return "○"
}
