package ssh

import (
	"context"
	"strings"

	"manent.dev/manent/deploy"
)

// Activate implements deploy.Plugin: point current at releases/<version>
// on every target, then prune the releases beyond params.keep_releases
// (see prunePlan). Its outputs are current (the version),
// previous_release (as Deploy's) and results.
func (p *Plugin) Activate(ctx context.Context, req deploy.PluginRequest) (deploy.Result, error) {
	r, err := p.begin(ctx, req)
	if err != nil {
		return deploy.Result{}, err
	}
	done := r.each(ctx, req.Targets, func(ctx context.Context, t *target) error { return t.activate(ctx) })
	prev := make([]string, len(done))
	for i, t := range done {
		prev[i] = t.result.Previous
	}
	return finish(done, map[string]string{"current": req.Artifact.Version, "previous_release": agreed(prev)})
}

func (t *target) activate(ctx context.Context) error {
	r := t.r
	version := r.req.Artifact.Version
	if r.req.DryRun {
		said, err := t.exec(ctx, script("read the target", probeScript, r.ps.path, version))
		if err != nil {
			return err
		}
		t.result.Previous = inService(said)
		st, _ := field(said, "release "+version)
		switch {
		case !strings.HasPrefix(st, "present "):
			// The deploy step of a dry run unpacked nothing.
			t.result.Outcome = "would switch"
			r.logf("%s: dry-run: release %s is not unpacked; would switch current to releases/%s", t.name, version, version)
		case t.result.Previous == version:
			t.result.Outcome = "in service"
		default:
			t.result.Outcome = "would switch"
			r.logf("%s: dry-run: would switch current to releases/%s", t.name, version)
		}
		return nil
	}
	said, err := t.exec(ctx, script("activate "+version, activateScript, r.ps.path, version,
		r.req.TargetKey(t.t), r.req.DeploymentID, r.now, r.owner))
	if err != nil {
		return err
	}
	prev := inService(said)
	t.result.Previous = prev
	if _, ok := field(said, "already"); ok {
		t.result.Outcome = "in service"
		r.logf("%s: %s already in service", t.name, version)
	} else {
		t.result.Outcome = "switched"
		r.logf("%s: current -> releases/%s", t.name, version)
	}
	t.prune(ctx, parseState(said), prev)
	return nil
}

// prune removes the releases prunePlan picks. A release it could not
// remove is logged and left for the next activation: the release is in
// service, which is what the step is for.
func (t *target) prune(ctx context.Context, state []entry, previous string) {
	r := t.r
	versions := prunePlan(state, r.owner, r.req.Artifact.Version, []string{previous}, r.req.Succeeded, r.ps.keep)
	if len(versions) == 0 {
		return
	}
	args := append([]string{r.ps.path, opPrune, r.req.TargetKey(t.t), r.req.DeploymentID, r.now, r.owner}, versions...)
	said, err := t.exec(ctx, script("prune", removeScript, args...))
	for _, s := range said {
		if v, ok := strings.CutPrefix(s, "removed "); ok {
			t.result.Pruned = append(t.result.Pruned, v)
		}
		if v, ok := strings.CutPrefix(s, "shared "); ok {
			r.logf("%s: releases/%s kept: another environment deploying to %s records it too", t.name, v, r.ps.path)
		}
	}
	if len(t.result.Pruned) > 0 {
		r.logf("%s: pruned %s (keep_releases %d)", t.name, strings.Join(t.result.Pruned, ", "), r.ps.keep)
	}
	if err != nil {
		r.logf("%s: warning: pruning stopped, the next activation tries again: %v", t.name, err)
	}
}
