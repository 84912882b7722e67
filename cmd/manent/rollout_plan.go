package main

import (
	"fmt"
	"io"
	"strings"

	"manent.dev/manent/client"
)

// rolloutPlanView is the rollout validate prints, the shape of the REST
// validation's rollout: snake_case, durations in seconds.
type rolloutPlanView struct {
	Passes  []rolloutPassView   `json:"passes"`
	Targets []plannedTargetView `json:"targets"`
}

type rolloutPassView struct {
	Index       int                `json:"index"`
	Name        string             `json:"name"`
	BakeSeconds int                `json:"bake_seconds"`
	Approval    bool               `json:"approval"`
	MaxFailures int                `json:"max_failures"`
	Batches     []rolloutBatchView `json:"batches"`
}

type rolloutBatchView struct {
	Index   int      `json:"index"`
	Targets []string `json:"targets"`
}

type plannedTargetView struct {
	Name    string            `json:"name"`
	Labels  map[string]string `json:"labels"`
	Outcome string            `json:"outcome"`
	Pass    *int              `json:"pass"`
	Batch   *int              `json:"batch"`
	Reason  *string           `json:"reason"`
}

func toRolloutPlanView(p *client.RolloutPlan) *rolloutPlanView {
	if p == nil {
		return nil
	}
	v := &rolloutPlanView{Passes: []rolloutPassView{}, Targets: []plannedTargetView{}}
	for _, pass := range p.Passes {
		pv := rolloutPassView{Index: pass.Index, Name: pass.Name, BakeSeconds: pass.BakeSeconds,
			Approval: pass.Approval, MaxFailures: pass.MaxFailures, Batches: []rolloutBatchView{}}
		for _, b := range pass.Batches {
			pv.Batches = append(pv.Batches, rolloutBatchView{Index: b.Index, Targets: nonNilStrings(b.Targets)})
		}
		v.Passes = append(v.Passes, pv)
	}
	for _, t := range p.Targets {
		v.Targets = append(v.Targets, plannedTargetView{Name: t.Name, Labels: keyValues(t.Labels),
			Outcome: strings.ToLower(string(t.Outcome)), Pass: t.Pass, Batch: t.Batch, Reason: t.Reason})
	}
	return v
}

// table prints the waves in order, one line per batch, then the targets
// the rollout leaves out.
func (v *rolloutPlanView) table(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "\nRollout: %d wave(s)\n", len(v.Passes)); err != nil {
		return err
	}
	tw := newTable(w)
	row(tw, "  #", "WAVE", "BATCH", "TARGETS", "BAKE", "APPROVAL", "MAX FAILURES")
	for _, p := range v.Passes {
		first := true
		cells := func(batch, targets string) {
			if first {
				row(tw, fmt.Sprintf("  %d", p.Index), p.Name, batch, targets, seconds(p.BakeSeconds),
					pick(p.Approval, "yes", "no"), fmt.Sprint(p.MaxFailures))
			} else {
				row(tw, "  ", "", batch, targets, "", "", "")
			}
			first = false
		}
		if len(p.Batches) == 0 {
			cells("", "(no target)")
		}
		for _, b := range p.Batches {
			cells(fmt.Sprint(b.Index), strings.Join(b.Targets, ", "))
		}
	}
	for _, t := range v.Targets {
		if t.Outcome == "targeted" {
			continue
		}
		reason := ""
		if t.Reason != nil {
			reason = *t.Reason
		}
		row(tw, "  "+t.Outcome, t.Name, "", reason, "", "", "")
	}
	return tw.Flush()
}
