package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"manent.dev/manent/deploy"
)

// The data of a checkpoint, per target: under the target's name the release
// in service ("" when none), for both steps; for the deploy step also, under
// "<target>.release", whether the deploy's release was already on the target
// ("present" or "absent") and, when present, under "<target>.sha256" the
// digest it was unpacked from. Users read it in the step's output: versions
// and digests only.
const (
	releaseSuffix  = ".release"
	digestSuffix   = ".sha256"
	releasePresent = "present"
	releaseAbsent  = "absent"
)

// Checkpoint implements deploy.Plugin. It reads the targets and changes
// nothing. An unknown req.Step is refused permanently.
func (p *Plugin) Checkpoint(_ context.Context, req deploy.PluginRequest) (deploy.Checkpoint, error) {
	switch req.Step {
	case deploy.StepActivation:
	case deploy.StepDeploy:
		if err := checkVersion(req.Artifact.Version); err != nil {
			return deploy.Checkpoint{}, err
		}
	default:
		return deploy.Checkpoint{}, unknownStep("checkpoint", req.Step)
	}
	data := map[string]string{}
	// put refuses two targets whose keys collide ("a" and "a.release"): a
	// checkpoint that mixed them up would remove the wrong release.
	put := func(key, value string) error {
		if _, dup := data[key]; dup {
			return deploy.Permanentf("checkpoint key %q names two targets; rename one of their directories", key)
		}
		data[key] = value
		return nil
	}
	for _, t := range req.Targets {
		if err := p.checkpointTarget(req, t, put); err != nil {
			return deploy.Checkpoint{}, fmt.Errorf("target %s: %w", t.Name(), err)
		}
	}
	return deploy.Checkpoint{Data: data}, nil
}

func (p *Plugin) checkpointTarget(req deploy.PluginRequest, t deploy.Target, put func(key, value string) error) error {
	dir := p.dir(t)
	cur, err := inService(dir)
	if err != nil {
		return err
	}
	if err := put(t.Name(), cur); err != nil {
		return err
	}
	if req.Step != deploy.StepDeploy {
		return nil
	}
	rel := filepath.Join(dir, releasesDir, req.Artifact.Version)
	if _, err := os.Lstat(rel); errors.Is(err, os.ErrNotExist) {
		return put(t.Name()+releaseSuffix, releaseAbsent)
	} else if err != nil {
		return fmt.Errorf("read release %s: %w", req.Artifact.Version, err)
	}
	if err := put(t.Name()+releaseSuffix, releasePresent); err != nil {
		return err
	}
	// A directory without a marker is kept all the same; it just has no
	// digest to show.
	if b, err := os.ReadFile(filepath.Join(rel, marker)); err == nil {
		return put(t.Name()+digestSuffix, strings.TrimSpace(string(b)))
	}
	return nil
}

// Rollback implements deploy.Plugin. It checks every target before it
// changes one, so a refused compensation leaves the targets as it found
// them; it changes and journals only targets that are not at the checkpoint
// yet, so repeating it is a no-op. An unknown req.Step, a target missing from
// the checkpoint, a checkpoint's release no longer on its target and (for
// deploy) a release still in service are refused permanently.
func (p *Plugin) Rollback(ctx context.Context, req deploy.PluginRequest, cp deploy.Checkpoint) (deploy.Result, error) {
	var plan func(deploy.PluginRequest, deploy.Checkpoint, deploy.Target) (*change, error)
	switch req.Step {
	case deploy.StepActivation:
		plan = p.planActivationRollback
	case deploy.StepDeploy:
		if err := checkVersion(req.Artifact.Version); err != nil {
			return deploy.Result{}, err
		}
		plan = p.planDeployRollback
	default:
		return deploy.Result{}, unknownStep("roll back", req.Step)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var changes []*change
	for _, t := range req.Targets {
		c, err := plan(req, cp, t)
		if err != nil {
			return deploy.Result{}, fmt.Errorf("target %s: %w", t.Name(), err)
		}
		if c != nil {
			changes = append(changes, c)
		}
	}
	for _, c := range changes {
		if err := ctx.Err(); err != nil {
			return deploy.Result{}, err
		}
		if req.DryRun {
			logf(req, "%s: dry-run: would %s", c.dir, c.what)
			continue
		}
		if err := appendJournal(c.dir, c.op, req, c.target); err != nil {
			return deploy.Result{}, err
		}
		if err := c.apply(); err != nil {
			return deploy.Result{}, fmt.Errorf("target %s: %w", c.target.Name(), err)
		}
		logf(req, "%s: %s", c.dir, c.what)
	}
	return deploy.Result{}, nil
}

// change is what a rollback does to one target, journaled as op.
type change struct {
	target deploy.Target
	dir    string
	op     string
	what   string
	apply  func() error
}

// planActivationRollback puts the checkpoint's release back in service, or
// removes current when nothing was in service; nil when the target is there.
func (p *Plugin) planActivationRollback(req deploy.PluginRequest, cp deploy.Checkpoint, t deploy.Target) (*change, error) {
	dir := p.dir(t)
	prev, ok := cp.Data[t.Name()]
	if !ok {
		return nil, deploy.Permanentf("not in the checkpoint")
	}
	cur, err := inService(dir)
	if err != nil {
		return nil, err
	}
	if cur == prev {
		logf(req, "%s: already at the checkpoint (%q in service)", dir, prev)
		return nil, nil
	}
	c := &change{target: t, dir: dir, op: opRollback}
	if prev == "" {
		c.what = "remove current: nothing was in service"
		c.apply = func() error {
			if err := os.Remove(filepath.Join(dir, currentLink)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove current: %w", err)
			}
			return nil
		}
		return c, nil
	}
	if err := checkVersion(prev); err != nil {
		return nil, err
	}
	release := filepath.Join(releasesDir, prev)
	if _, err := os.Stat(filepath.Join(dir, release, marker)); errors.Is(err, os.ErrNotExist) {
		return nil, deploy.Permanentf("release %s of the checkpoint is no longer on the target", prev)
	} else if err != nil {
		return nil, fmt.Errorf("read release %s: %w", prev, err)
	}
	c.what = "put " + prev + " back in service"
	c.apply = func() error { return switchCurrent(dir, release) }
	return c, nil
}

// planDeployRollback removes the deploy's release where the checkpoint says
// it was absent; nil when it was present, or is not there (the deploy never
// reached the target, or the removal is done).
func (p *Plugin) planDeployRollback(req deploy.PluginRequest, cp deploy.Checkpoint, t deploy.Target) (*change, error) {
	dir := p.dir(t)
	version := req.Artifact.Version
	switch cp.Data[t.Name()+releaseSuffix] {
	case releasePresent:
		logf(req, "%s: release %s was there before the deploy; kept", dir, version)
		return nil, nil
	case releaseAbsent:
	default:
		return nil, deploy.Permanentf("not in the checkpoint of the deploy step")
	}
	rel := filepath.Join(dir, releasesDir, version)
	if _, err := os.Lstat(rel); errors.Is(err, os.ErrNotExist) {
		logf(req, "%s: release %s is not there; nothing to remove", dir, version)
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("read release %s: %w", version, err)
	}
	cur, err := inService(dir)
	if err != nil {
		return nil, err
	}
	if cur == version {
		return nil, deploy.Permanentf("release %s is in service; roll back the activation first", version)
	}
	return &change{target: t, dir: dir, op: opRemove, what: "remove release " + version, apply: func() error {
		// The marker goes first: a removal cut short must not leave a
		// directory that a later deploy takes for an unpacked release.
		if err := os.Remove(filepath.Join(rel, marker)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove release marker: %w", err)
		}
		if err := os.RemoveAll(rel); err != nil {
			return fmt.Errorf("remove release %s: %w", version, err)
		}
		return nil
	}}, nil
}

// inService is the release current points at, "" when there is no current.
func inService(dir string) (string, error) {
	cur, err := os.Readlink(filepath.Join(dir, currentLink))
	switch {
	case err == nil:
		return filepath.Base(cur), nil
	case errors.Is(err, os.ErrNotExist):
		return "", nil
	default:
		return "", fmt.Errorf("read current: %w", err)
	}
}

func unknownStep(what, step string) error {
	return deploy.Permanentf("cannot %s step %q: the local plugin undoes only %s and %s",
		what, step, deploy.StepDeploy, deploy.StepActivation)
}
