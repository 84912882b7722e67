package ssh

import (
	"archive/tar"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/sshexec"
	"manent.dev/manent/internal/sshfleet"
)

// An artifact whose tree has a read-only directory (0555, as Bazel and Nix
// outputs are) unpacks with every directory 0755, as the local plugin
// makes them, so that a login that is not root can remove the release
// (rollback:deploy, pruning) and deploy the version again. On a real
// OpenSSH host with a non-root login (internal/sshfleet): root, which the
// in-process server's commands run as, removes read-only directories
// anyway.
func TestReadOnlyDirectoryOfAnArtifactCanBeRemoved(t *testing.T) {
	sshfleet.Require(t)
	dir, err := os.MkdirTemp("", "manent-review-fleet-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	fl, err := sshfleet.Start(sshfleet.Config{Dir: dir, Users: []string{"manent-e2e-a"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fl.Stop() })
	key, err := os.ReadFile(fl.DeployKey())
	if err != nil {
		t.Fatal(err)
	}
	u := fl.Users[0]
	rel := fmt.Sprintf("apps/review-ro-%d", os.Getpid())
	t.Cleanup(func() { _ = os.RemoveAll(filepath.Join(u.Home, rel)) })

	art := writeArchive(t, map[string]string{"ro/f": "x"}, &tar.Header{Name: "ro/", Mode: 0o555, Typeflag: tar.TypeDir})
	p := New(Options{SSH: sshexec.Options{KnownHosts: fl.KnownHosts()}})
	t.Cleanup(func() { _ = p.Close() })
	req := func(step string, kind deploy.StepKind) deploy.PluginRequest {
		return deploy.PluginRequest{
			DeploymentID: "ro1", Step: step, IdempotencyKey: deploy.StepKey{Step: step, Kind: kind}.IdempotencyKey("ro1"),
			Application: "hello", Environment: "test",
			Artifact:     deploy.Artifact{Type: "application", Name: "hello", Version: "1.0.0"},
			ArtifactPath: art, SHA256: digest(t, art),
			Targets: []deploy.Target{{Host: "127.0.0.1", Port: fl.Port, User: u.Name}},
			Params:  map[string]string{"path": rel},
			SSH:     &deploy.SSHLogin{KeySecret: "k"},
			Secret:  func(_ context.Context, _ string) (string, error) { return string(key), nil },
			Log:     func(format string, args ...any) { t.Logf(format, args...) },
		}
	}
	ctx := t.Context()
	cp, err := p.Checkpoint(ctx, req(deploy.StepDeploy, deploy.KindCheckpoint))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Deploy(ctx, req(deploy.StepDeploy, deploy.KindRun)); err != nil {
		t.Fatalf("deploy: %v", err)
	}
	if _, err := p.Rollback(ctx, req(deploy.StepDeploy, deploy.KindRollback), cp); err != nil {
		t.Errorf("rollback:deploy of a release with a read-only directory: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(u.Home, rel, "releases/1.0.0")); err == nil {
		t.Errorf("releases/1.0.0 is still there after rollback:deploy")
	}
	if _, err := p.Deploy(ctx, req(deploy.StepDeploy, deploy.KindRun)); err != nil {
		t.Errorf("a new deploy of 1.0.0 after the rollback: %v", err)
	}
}
