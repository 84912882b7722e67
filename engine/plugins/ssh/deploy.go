package ssh

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path"
	"strings"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/plugins/local"
)

// Deploy implements deploy.Plugin: on every target, upload the artifact,
// check its digest there and unpack it into <path>/releases/<version>; a
// release already unpacked from the same digest is kept. Its outputs are
// release (the version), release_path (<path>/releases/<version>, relative
// to the login's home when path is), previous_release (the release in
// service before, "" for none; the targets' values joined by commas when
// they differ), targets (the targets as a targets export) and results
// (what each target did, a JSON list).
func (p *Plugin) Deploy(ctx context.Context, req deploy.PluginRequest) (deploy.Result, error) {
	r, err := p.begin(ctx, req)
	if err != nil {
		return deploy.Result{}, err
	}
	// Checked once, before any target, with the local plugin's rules: a
	// target's tar would follow links and ../ that manent refuses.
	if err := local.CheckArchive(req.ArtifactPath, req.Limits); err != nil {
		return deploy.Result{}, err
	}
	flags, err := tarFlags(req.ArtifactPath)
	if err != nil {
		return deploy.Result{}, err
	}
	done := r.each(ctx, req.Targets, func(ctx context.Context, t *target) error {
		return t.deploy(ctx, flags)
	})
	prev := make([]string, len(done))
	for i, t := range done {
		prev[i] = t.result.Previous
	}
	return finish(done, map[string]string{
		"release":          req.Artifact.Version,
		"release_path":     path.Join(r.ps.path, releasesDir, req.Artifact.Version),
		"previous_release": agreed(prev),
		"targets":          targetsOutput(req.Targets),
	})
}

// tarFlags are the flags of tar -x for the artifact: z for gzip (a
// target's tar may not sniff it), o to never take the archive's owners.
func tarFlags(artifact string) (string, error) {
	f, err := os.Open(artifact)
	if err != nil {
		return "", fmt.Errorf("open artifact: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only
	magic, _ := bufio.NewReader(f).Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		return "zo", nil
	}
	return "o", nil
}

func (t *target) deploy(ctx context.Context, flags string) error {
	r := t.r
	version := r.req.Artifact.Version
	dir := r.ps.path
	if r.req.DryRun {
		said, err := t.exec(ctx, script("read the target", probeScript, dir, version))
		if err != nil {
			return err
		}
		t.result.Previous = inService(said)
		kept, err := t.present(said, version)
		switch {
		case err != nil:
			return err
		case kept:
			t.result.Outcome = "kept"
		default:
			t.result.Outcome = "would unpack"
			r.logf("%s: dry-run: would upload %s and unpack it into %s", t.name, version, path.Join(dir, releasesDir, version))
		}
		return nil
	}
	said, err := t.exec(ctx, script("prepare", prepareScript, dir, version, r.req.SHA256, r.owner, r.req.DeploymentID, r.now))
	if err != nil {
		return err
	}
	t.result.Previous = inService(said)
	if kept, err := t.present(said, version); err != nil || kept {
		if kept {
			t.result.Outcome = "kept"
		}
		return err
	}
	upload := "upload-" + version + ".tar"
	f, err := os.Open(r.req.ArtifactPath)
	if err != nil {
		return fmt.Errorf("open artifact: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only
	how, err := t.client.Upload(ctx, f, path.Join(dir, ".manent", upload))
	if err != nil {
		return err
	}
	r.logf("%s: uploaded %s (%s)", t.name, version, how)
	said, err = t.exec(ctx, script("unpack "+version, unpackScript, dir, version, r.req.SHA256, upload, flags,
		r.req.TargetKey(t.t), r.req.DeploymentID, r.now, r.owner))
	if err != nil {
		return err
	}
	if _, ok := field(said, "kept"); ok {
		t.result.Outcome = "kept"
		r.logf("%s: release %s already unpacked", t.name, version)
		return nil
	}
	files, _ := field(said, "unpacked")
	t.result.Outcome = "unpacked"
	r.logf("%s: unpacked %s files into %s", t.name, strings.TrimSpace(files), path.Join(dir, releasesDir, version))
	return nil
}

// present reports whether the version is unpacked on the target from the
// request's digest; another digest, or a directory manent did not unpack,
// is refused.
func (t *target) present(said []string, version string) (bool, error) {
	st, _ := field(said, "release "+version)
	switch st {
	case "absent", "":
		return false, nil
	case "present " + t.r.req.SHA256:
		t.r.logf("%s: release %s already unpacked", t.name, version)
		return true, nil
	case "present":
		return false, deploy.Permanentf("%s is there but manent did not unpack it; move it away or give the artifact a new version",
			path.Join(t.r.ps.path, releasesDir, version))
	}
	return false, deploy.Permanentf("release %s already exists with other content (sha256 %s); give the new artifact a new version",
		version, strings.TrimPrefix(st, "present "))
}

// inService is the release a script found in service, "" for none: the
// version the script read from current (see current in the prelude), the
// one way every step names it.
func inService(said []string) string {
	cur, _ := field(said, "current")
	return strings.TrimSpace(cur)
}
