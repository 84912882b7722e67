package ssh

import (
	"encoding/json"
	"fmt"
	"strings"

	"manent.dev/manent/deploy"
)

// result is what a step did on one target, as the step's output shows it
// (the results output, a JSON list in the order of the targets).
type result struct {
	Target string `json:"target"`
	Host   string `json:"host"`
	Port   int    `json:"port,omitempty"`
	User   string `json:"user"`
	// Outcome is a word or two: unpacked, kept, switched, in service,
	// rolled back, removed, unchanged, failed; "would ..." in a dry run.
	Outcome string `json:"outcome"`
	// Previous is the release that was in service before the step.
	Previous string   `json:"previous_release,omitempty"`
	Pruned   []string `json:"pruned,omitempty"`
	// Command and ExitCode are those of the command that failed.
	Command  string `json:"command,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Error    string `json:"error,omitempty"`
}

// maxErrorsShown is how many targets' errors a step's error quotes; the
// results output and the log have them all.
const maxErrorsShown = 3

// finish turns the targets' work into the step's outputs and error: the
// step fails when any target failed, permanently when any failure is
// permanent (trying again cannot make that target work), and its outputs
// hold every target's result either way.
func finish(targets []*target, out map[string]string) (deploy.Result, error) {
	results := make([]result, len(targets))
	var failed []*target
	permanent := false
	for i, t := range targets {
		results[i] = t.result
		if t.err != nil {
			failed = append(failed, t)
			permanent = permanent || deploy.IsPermanent(t.err)
		}
	}
	if out == nil {
		out = map[string]string{}
	}
	out["results"] = encode(results)
	if len(failed) == 0 {
		return deploy.Result{Outputs: out}, nil
	}
	msgs := make([]string, 0, maxErrorsShown)
	for _, t := range failed[:min(len(failed), maxErrorsShown)] {
		msgs = append(msgs, fmt.Sprintf("%s: %v", t.name, t.err))
	}
	if more := len(failed) - maxErrorsShown; more > 0 {
		msgs = append(msgs, fmt.Sprintf("and %d more (see the step's results)", more))
	}
	err := fmt.Errorf("%d of %d targets failed: %s", len(failed), len(targets), strings.Join(msgs, "; "))
	if permanent {
		err = deploy.Permanent(err)
	}
	return deploy.Result{Outputs: out}, err
}

// encode is v as JSON, as outputs carry it.
func encode(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// The values are strings, ints and lists of them: encoding cannot fail.
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// agreed is the value the targets agree on, or their values joined by
// commas in the order of the targets, each once.
func agreed(values []string) string {
	var seen []string
	for _, v := range values {
		if !slicesContains(seen, v) {
			seen = append(seen, v)
		}
	}
	return strings.Join(seen, ",")
}

// targetsOutput is the targets as a targets export: [{host, port, user,
// labels}], so a deploy further down a chain can take them as its own.
func targetsOutput(ts []deploy.Target) string {
	type wire struct {
		Host   string            `json:"host"`
		Port   int               `json:"port,omitempty"`
		User   string            `json:"user,omitempty"`
		Labels map[string]string `json:"labels,omitempty"`
	}
	items := make([]wire, len(ts))
	for i, t := range ts {
		items[i] = wire{Host: t.Host, Port: t.Port, User: t.User, Labels: t.Labels}
	}
	return encode(items)
}
