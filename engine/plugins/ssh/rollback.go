package ssh

import (
	"context"
	"encoding/json"
	"strings"

	"manent.dev/manent/deploy"
)

// The data of a checkpoint: under checkpointTargets, a JSON object with an
// entry per target (user@host:port): the release in service ("" for none)
// and, for the deploy step, whether the deploy's release was already on
// the target ("present" or "absent") and the digest it was unpacked from.
// One key for all targets: a checkpoint holds at most
// deploy.MaxPluginOutputKeys entries, and a step may have hundreds of
// targets.
const checkpointTargets = "targets"

// Values of targetCheckpoint.Release.
const (
	releasePresent = "present"
	releaseAbsent  = "absent"
)

type targetCheckpoint struct {
	Current string `json:"current"`
	Release string `json:"release,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
}

// Checkpoint implements deploy.Plugin. It reads the targets and changes
// nothing. An unknown req.Step is refused permanently.
func (p *Plugin) Checkpoint(ctx context.Context, req deploy.PluginRequest) (deploy.Checkpoint, error) {
	if err := knownStep("checkpoint", req.Step); err != nil {
		return deploy.Checkpoint{}, err
	}
	r, err := p.begin(ctx, req)
	if err != nil {
		return deploy.Checkpoint{}, err
	}
	version := req.Artifact.Version
	var versions []string
	if req.Step == deploy.StepDeploy {
		versions = []string{version}
	}
	cps := make([]targetCheckpoint, len(req.Targets))
	done := r.each(ctx, req.Targets, func(ctx context.Context, t *target) error {
		said, err := t.exec(ctx, script("read the target", probeScript, append([]string{r.ps.path}, versions...)...))
		if err != nil {
			return err
		}
		cp := targetCheckpoint{Current: inService(said)}
		if req.Step == deploy.StepDeploy {
			st, _ := field(said, "release "+version)
			cp.Release = releasePresent
			switch {
			case st == "absent" || st == "":
				cp.Release = releaseAbsent
			case strings.HasPrefix(st, "present "):
				cp.SHA256 = strings.TrimPrefix(st, "present ")
			}
		}
		cps[t.index] = cp
		t.result.Outcome = "read"
		return nil
	})
	if _, err := finish(done, nil); err != nil {
		return deploy.Checkpoint{}, err
	}
	data := map[string]targetCheckpoint{}
	for i, t := range req.Targets {
		data[targetName(t)] = cps[i]
	}
	return deploy.Checkpoint{Data: map[string]string{checkpointTargets: encode(data)}}, nil
}

// Rollback implements deploy.Plugin. It reads every target before it
// changes one, so a refused compensation leaves the targets as it found
// them; it changes and journals only targets that are not at the
// checkpoint yet, so repeating it is a no-op. An unknown req.Step, a
// target missing from the checkpoint, a checkpoint's release no longer on
// its target and (for deploy) a release still in service are refused
// permanently.
func (p *Plugin) Rollback(ctx context.Context, req deploy.PluginRequest, cp deploy.Checkpoint) (deploy.Result, error) {
	if err := knownStep("roll back", req.Step); err != nil {
		return deploy.Result{}, err
	}
	r, err := p.begin(ctx, req)
	if err != nil {
		return deploy.Result{}, err
	}
	var saved map[string]targetCheckpoint
	if raw, ok := cp.Data[checkpointTargets]; ok {
		if err := json.Unmarshal([]byte(raw), &saved); err != nil {
			return deploy.Result{}, deploy.Permanentf("the checkpoint of %s cannot be read: %v", req.Step, err)
		}
	}
	plan := r.planActivationRollback
	if req.Step == deploy.StepDeploy {
		plan = r.planDeployRollback
	}
	changes := make([]*change, len(req.Targets))
	planned := r.each(ctx, req.Targets, func(ctx context.Context, t *target) error {
		c, err := plan(ctx, t, saved)
		changes[t.index] = c
		if err == nil && c == nil {
			t.result.Outcome = "unchanged"
		}
		return err
	})
	if res, err := finish(planned, nil); err != nil {
		return res, err
	}
	var todo []deploy.Target
	var todoChanges []*change
	for i, c := range changes {
		if c != nil {
			todo = append(todo, req.Targets[i])
			todoChanges = append(todoChanges, c)
		}
	}
	applied := r.each(ctx, todo, func(ctx context.Context, t *target) error {
		c := todoChanges[t.index]
		if req.DryRun {
			t.result.Outcome = "would " + c.what
			r.logf("%s: dry-run: would %s", t.name, c.what)
			return nil
		}
		said, err := t.exec(ctx, script(c.cmd.name, c.cmd.text, c.cmd.args...))
		if err != nil {
			return err
		}
		if v, ok := field(said, "shared"); ok {
			t.result.Outcome = "kept"
			r.logf("%s: release %s kept: another environment deploying to %s records it too", t.name, v, r.ps.path)
			return nil
		}
		t.result.Outcome = c.done
		r.logf("%s: %s", t.name, c.what)
		return nil
	})
	// Every target's result, in the order of the request.
	byName := map[string]*target{}
	for _, t := range append(planned, applied...) {
		byName[t.name] = t
	}
	all := make([]*target, len(req.Targets))
	for i, t := range req.Targets {
		all[i] = byName[targetName(t)]
	}
	return finish(all, nil)
}

// change is what a rollback does to one target.
type change struct {
	what string
	done string
	cmd  commandSpec
}

// planActivationRollback puts the checkpoint's release back in service,
// or removes current when nothing was in service; nil when the target is
// there.
func (r *run) planActivationRollback(ctx context.Context, t *target, saved map[string]targetCheckpoint) (*change, error) {
	cp, ok := saved[t.name]
	if !ok {
		return nil, deploy.Permanentf("not in the checkpoint")
	}
	prev := cp.Current
	versions := []string{r.ps.path}
	if prev != "" {
		if err := checkVersion(prev); err != nil {
			return nil, err
		}
		versions = append(versions, prev)
	}
	said, err := t.exec(ctx, script("read the target", probeScript, versions...))
	if err != nil {
		return nil, err
	}
	cur := inService(said)
	t.result.Previous = cur
	if cur == prev {
		r.logf("%s: already at the checkpoint (%q in service)", t.name, prev)
		return nil, nil
	}
	args := []string{r.ps.path, r.req.Artifact.Version, prev, r.req.TargetKey(t.t), r.req.DeploymentID, r.now, r.owner}
	c := &change{cmd: commandSpec{name: "roll back the activation", text: rollbackActivationScript, args: args}}
	if prev == "" {
		c.what, c.done = "remove current: nothing was in service", "current removed"
		return c, nil
	}
	if st, _ := field(said, "release "+prev); !strings.HasPrefix(st, "present ") {
		return nil, deploy.Permanentf("release %s of the checkpoint is no longer on the target", prev)
	}
	c.what, c.done = "put "+prev+" back in service", "rolled back"
	return c, nil
}

// planDeployRollback removes the deploy's release where the checkpoint
// says it was absent; nil when it was present, or is not there (the deploy
// never reached the target, or the removal is done).
func (r *run) planDeployRollback(ctx context.Context, t *target, saved map[string]targetCheckpoint) (*change, error) {
	version := r.req.Artifact.Version
	cp, ok := saved[t.name]
	switch {
	case !ok || (cp.Release != releasePresent && cp.Release != releaseAbsent):
		return nil, deploy.Permanentf("not in the checkpoint of the deploy step")
	case cp.Release == releasePresent:
		r.logf("%s: release %s was there before the deploy; kept", t.name, version)
		return nil, nil
	}
	said, err := t.exec(ctx, script("read the target", probeScript, r.ps.path, version))
	if err != nil {
		return nil, err
	}
	if st, _ := field(said, "release "+version); st == "absent" || st == "" {
		r.logf("%s: release %s is not there; nothing to remove", t.name, version)
		return nil, nil
	}
	if inService(said) == version {
		return nil, deploy.Permanentf("release %s is in service; roll back the activation first", version)
	}
	args := []string{r.ps.path, opRemove, r.req.TargetKey(t.t), r.req.DeploymentID, r.now, r.owner, version}
	return &change{what: "remove release " + version, done: "removed",
		cmd: commandSpec{name: "remove " + version, text: removeScript, args: args}}, nil
}

// commandSpec is a script with its values, run when the change is applied.
type commandSpec struct {
	name, text string
	args       []string
}

func knownStep(what, step string) error {
	switch step {
	case deploy.StepDeploy, deploy.StepActivation:
		return nil
	}
	return deploy.Permanentf("cannot %s step %q: the ssh plugin undoes only %s and %s",
		what, step, deploy.StepDeploy, deploy.StepActivation)
}
