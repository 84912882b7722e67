package local

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"manent.dev/manent/deploy"
)

// Files kept on every target.
const (
	releasesDir = "releases"
	currentLink = "current"
	// marker records the digest a release was unpacked from, so a second
	// deploy of the same version is recognised as done.
	marker = ".manent-release"
	// journal is an append-only record of what manent did to the target, one
	// line per operation actually performed: operators read it, tests count it.
	journal = ".manent/journal"
)

// Operations of the journal, the second field of its lines.
const (
	opDeploy   = "deploy"
	opActivate = "activate"
	// opRollback is an activation undone: the checkpoint's release is back
	// in service (or current removed).
	opRollback = "rollback"
	// opRemove is a deploy undone: the release it added is removed.
	opRemove = "remove"
)

// Plugin is the local plugin. Relative target paths resolve against BaseDir
// (the directory of manent.yml).
type Plugin struct {
	BaseDir string
	// mu serialises operations on one target directory within this process;
	// the deploy queue already allows one deploy per environment.
	mu sync.Mutex
}

// New returns the local plugin.
func New(baseDir string) *Plugin { return &Plugin{BaseDir: baseDir} }

// Name implements deploy.Plugin.
func (*Plugin) Name() string { return "local" }

// ValidateTargets implements deploy.Plugin: every target needs a path and
// no host (the local plugin cannot reach other machines).
func (p *Plugin) ValidateTargets(targets []deploy.Target, _ map[string]string) []deploy.FieldError {
	var errs []deploy.FieldError
	for i, t := range targets {
		path := fmt.Sprintf("targets[%d]", i)
		if t.Path == "" {
			errs = append(errs, deploy.FieldError{Path: path + ".path", Message: "the local plugin needs a directory path"})
		}
		if t.Host != "" {
			errs = append(errs, deploy.FieldError{Path: path + ".host", Message: "the local plugin deploys on the worker only; remove host"})
		}
	}
	return errs
}

func (p *Plugin) dir(t deploy.Target) string {
	if filepath.IsAbs(t.Path) {
		return filepath.Clean(t.Path)
	}
	return filepath.Join(p.BaseDir, t.Path)
}

// Deploy implements deploy.Plugin: unpack into releases/<version>. Its
// outputs, which a descriptor can export to the next deploy of a chain, are
// release (the version), paths (the release directories, comma-separated),
// release_path (the release directory of the first target) and targets (the
// target directories as a targets export: [{"path": "/abs/dir"}, ...]).
// They hold paths and versions only, never a secret.
func (p *Plugin) Deploy(ctx context.Context, req deploy.PluginRequest) (deploy.Result, error) {
	if err := checkVersion(req.Artifact.Version); err != nil {
		return deploy.Result{}, err
	}
	// Checked once, before any target: an artifact refused for its content
	// or its size leaves every target as it was.
	if err := CheckArchive(req.ArtifactPath, req.Limits); err != nil {
		return deploy.Result{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var paths []string
	dirs := []targetPath{}
	for _, t := range req.Targets {
		if err := ctx.Err(); err != nil {
			return deploy.Result{}, err
		}
		dir := p.dir(t)
		path, err := p.deployTarget(ctx, req, t, dir)
		if err != nil {
			return deploy.Result{}, fmt.Errorf("target %s: %w", t.Name(), err)
		}
		paths = append(paths, path)
		dirs = append(dirs, targetPath{Path: dir})
	}
	targets, err := json.Marshal(dirs)
	if err != nil {
		return deploy.Result{}, fmt.Errorf("encode targets output: %w", err)
	}
	out := map[string]string{
		"release": req.Artifact.Version,
		"paths":   strings.Join(paths, ","),
		"targets": string(targets),
	}
	if len(paths) > 0 {
		out["release_path"] = paths[0]
	}
	return deploy.Result{Outputs: out}, nil
}

// targetPath is a target of the targets output. An object with a path, not a
// plain string: a plain string is a host, and these are directories, which
// a local deploy further down the chain takes as its own targets.
type targetPath struct {
	Path string `json:"path"`
}

func (p *Plugin) deployTarget(ctx context.Context, req deploy.PluginRequest, t deploy.Target, dir string) (string, error) {
	rel := filepath.Join(dir, releasesDir, req.Artifact.Version)
	if req.DryRun {
		if done, err := unpacked(req, dir, rel); done || err != nil {
			return rel, err
		}
		logf(req, "%s: dry-run: would unpack %s into %s", dir, req.Artifact.Version, rel)
		return rel, nil
	}
	if err := os.MkdirAll(filepath.Join(dir, releasesDir), 0o755); err != nil {
		return "", fmt.Errorf("create releases directory: %w", err)
	}
	unlock, err := lockStaging(ctx, req, dir)
	if err != nil {
		return "", err
	}
	// Deferred first, so it runs last: the staging directory is renamed or
	// removed while the lock is held.
	defer unlock()
	// Read under the lock: another process may have just put it in place.
	if done, err := unpacked(req, dir, rel); done || err != nil {
		return rel, err
	}
	if err := removeStaleStaging(req, dir); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Join(dir, releasesDir), "."+req.Artifact.Version+stagingInfix)
	if err != nil {
		return "", fmt.Errorf("create staging directory: %w", err)
	}
	// After the rename there is nothing left to remove; after a failure a
	// staging directory that could not be removed is removed by the next
	// deploy to this directory, so the deploy's own error is the one that
	// matters.
	defer func() { _ = os.RemoveAll(tmp) }()
	files, err := unpack(req.ArtifactPath, tmp, req.Limits)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, marker), []byte(req.SHA256+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("write release marker: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", fmt.Errorf("chmod release: %w", err)
	}
	// Journaled before it is done: a crash right after the rename leaves
	// no operation without its line (see appendJournal).
	if err := appendJournal(dir, opDeploy, req, t); err != nil {
		return "", err
	}
	// The rename is the commit point: a crash before it leaves only a
	// staging directory, which the next deploy to this directory removes.
	if err := os.Rename(tmp, rel); err != nil {
		return "", fmt.Errorf("move release in place: %w", err)
	}
	logf(req, "%s: unpacked %d files into %s", dir, files, rel)
	return rel, nil
}

// unpacked reports whether the release at rel is already there, from the
// same artifact; the same version from another artifact is refused.
func unpacked(req deploy.PluginRequest, dir, rel string) (bool, error) {
	b, err := os.ReadFile(filepath.Join(rel, marker))
	if err != nil {
		return false, nil
	}
	if strings.TrimSpace(string(b)) == req.SHA256 {
		logf(req, "%s: release %s already unpacked", dir, req.Artifact.Version)
		return true, nil
	}
	return false, deploy.Permanentf("release %s already exists with other content (sha256 %s); give the new artifact a new version",
		req.Artifact.Version, strings.TrimSpace(string(b)))
}

// Activate implements deploy.Plugin: point current at releases/<version>.
func (p *Plugin) Activate(ctx context.Context, req deploy.PluginRequest) (deploy.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range req.Targets {
		if err := ctx.Err(); err != nil {
			return deploy.Result{}, err
		}
		dir := p.dir(t)
		target := filepath.Join(releasesDir, req.Artifact.Version)
		if _, err := os.Stat(filepath.Join(dir, target, marker)); err != nil {
			// The deploy step of a dry run unpacked nothing.
			if req.DryRun {
				logf(req, "%s: dry-run: release %s is not unpacked; would switch current to %s", dir, req.Artifact.Version, target)
				continue
			}
			return deploy.Result{}, deploy.Permanentf("target %s: release %s is not deployed", t.Name(), req.Artifact.Version)
		}
		if cur, err := os.Readlink(filepath.Join(dir, currentLink)); err == nil && cur == target {
			logf(req, "%s: %s already in service", dir, req.Artifact.Version)
			continue
		}
		if req.DryRun {
			logf(req, "%s: dry-run: would switch current to %s", dir, target)
			continue
		}
		if err := appendJournal(dir, opActivate, req, t); err != nil {
			return deploy.Result{}, err
		}
		if err := switchCurrent(dir, target); err != nil {
			return deploy.Result{}, fmt.Errorf("target %s: %w", t.Name(), err)
		}
		logf(req, "%s: current -> %s", dir, target)
	}
	return deploy.Result{Outputs: map[string]string{"current": req.Artifact.Version}}, nil
}

// switchCurrent replaces the current symlink atomically (rename over it).
func switchCurrent(dir, target string) error {
	tmp := filepath.Join(dir, fmt.Sprintf(".current.tmp-%d", time.Now().UnixNano()))
	if err := os.Symlink(target, tmp); err != nil {
		return fmt.Errorf("create symlink: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, currentLink)); err != nil {
		_ = os.Remove(tmp) // best effort: a stray temporary link is harmless
		return fmt.Errorf("switch current: %w", err)
	}
	return nil
}

// appendJournal records op on the target at dir, just before it is done:
// the line carries the request's key for the target, and a key already in
// the journal is not written again, so an operation interrupted between
// its line and its change, and done by the next attempt, still has one
// line. (An operation that failed, or whose deploy never ran it again,
// keeps its line.)
func appendJournal(dir, op string, req deploy.PluginRequest, t deploy.Target) error {
	path := filepath.Join(dir, journal)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create journal directory: %w", err)
	}
	if written, err := journaled(path, op, req.TargetKey(t)); err != nil || written {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open journal: %w", err)
	}
	_, err = fmt.Fprintf(f, "%s %s %s %s %s\n", time.Now().UTC().Format(time.RFC3339Nano), op,
		req.DeploymentID, req.TargetKey(t), req.Artifact.Version)
	// Close can be where a write fails (a full disk, a network file system):
	// its error counts as much as the write's.
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	return nil
}

func logf(req deploy.PluginRequest, format string, args ...any) {
	if req.Log != nil {
		req.Log(format, args...)
	}
}

func checkVersion(v string) error {
	if v == "" || v == "." || v == ".." || strings.ContainsAny(v, `/\`) {
		return deploy.Permanentf("version %q cannot name a release directory", v)
	}
	return nil
}

// journaled reports whether the journal at path has a line of op with key.
func journaled(path, op, key string) (bool, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read journal: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[1] == op && f[3] == key {
			return true, nil
		}
	}
	return false, nil
}
