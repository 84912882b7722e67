package local

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
)

// stepRequest is a request for a step of deployment id, keyed as the engine
// keys it.
func stepRequest(art, target, id, version, sha, step string, kind deploy.StepKind) deploy.PluginRequest {
	req := request(art, target, version, sha)
	req.DeploymentID, req.Step = id, step
	req.IdempotencyKey = deploy.StepKey{Step: step, Kind: kind}.IdempotencyKey(id)
	return req
}

// The checkpoint's data is shown to users: its keys and values are pinned.
func TestCheckpointData(t *testing.T) {
	ctx := context.Background()
	art1 := writeArchive(t, map[string]string{"v": "1"})
	art2 := writeArchive(t, map[string]string{"v": "2"})
	tests := []struct {
		name  string
		given func(p *Plugin, target string) error
		step  string
		want  func(target string) map[string]string
	}{{
		name: "deploy on an empty target",
		step: deploy.StepDeploy,
		want: func(tg string) map[string]string { return map[string]string{tg: "", tg + ".release": "absent"} },
	}, {
		name:  "deploy over 1.0.0",
		given: func(p *Plugin, tg string) error { return deployActivate(p, art1, tg) },
		step:  deploy.StepDeploy,
		want:  func(tg string) map[string]string { return map[string]string{tg: "1.0.0", tg + ".release": "absent"} },
	}, {
		name: "deploy of 2.0.0, already there",
		given: func(p *Plugin, tg string) error {
			if err := deployActivate(p, art1, tg); err != nil {
				return err
			}
			_, err := p.Deploy(ctx, stepRequest(art2, tg, "d2", "2.0.0", "bbb", deploy.StepDeploy, deploy.KindRun))
			return err
		},
		step: deploy.StepDeploy,
		want: func(tg string) map[string]string {
			return map[string]string{tg: "1.0.0", tg + ".release": "present", tg + ".sha256": "bbb"}
		},
	}, {
		name:  "activation over 1.0.0",
		given: func(p *Plugin, tg string) error { return deployActivate(p, art1, tg) },
		step:  deploy.StepActivation,
		want:  func(tg string) map[string]string { return map[string]string{tg: "1.0.0"} },
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := t.TempDir()
			p := New("/")
			if tt.given != nil {
				if err := tt.given(p, target); err != nil {
					t.Fatal(err)
				}
			}
			cp, err := p.Checkpoint(ctx, stepRequest(art2, target, "d3", "2.0.0", "bbb", tt.step, deploy.KindCheckpoint))
			if err != nil {
				t.Fatal(err)
			}
			if want := tt.want(target); !reflect.DeepEqual(cp.Data, want) {
				t.Fatalf("checkpoint = %v, want %v", cp.Data, want)
			}
		})
	}
}

func deployActivate(p *Plugin, art, target string) error {
	ctx := context.Background()
	if _, err := p.Deploy(ctx, stepRequest(art, target, "d1", "1.0.0", "aaa", deploy.StepDeploy, deploy.KindRun)); err != nil {
		return err
	}
	_, err := p.Activate(ctx, stepRequest(art, target, "d1", "1.0.0", "aaa", deploy.StepActivation, deploy.KindRun))
	return err
}

// Targets "a" and "a.release" would share a key of the deploy checkpoint.
func TestCheckpointKeysCollide(t *testing.T) {
	req := stepRequest("", "", "d1", "1.0.0", "aaa", deploy.StepDeploy, deploy.KindCheckpoint)
	req.Targets = []deploy.Target{{Path: "a"}, {Path: "a.release"}}
	if _, err := New(t.TempDir()).Checkpoint(context.Background(), req); !deploy.IsPermanent(err) {
		t.Fatalf("got %v, want a permanent error", err)
	}
}

// The compensation of a deploy whose release is in service on one target
// of two removes it from neither.
func TestRollbackDeployRefusesBeforeChanging(t *testing.T) {
	ctx := context.Background()
	a, b := t.TempDir(), t.TempDir()
	p := New("/")
	art := writeArchive(t, map[string]string{"v": "1"})
	both := stepRequest(art, "", "d1", "1.0.0", "aaa", deploy.StepDeploy, deploy.KindRun)
	both.Targets = []deploy.Target{{Path: a}, {Path: b}}
	cpReq := both
	cpReq.IdempotencyKey = deploy.StepKey{Step: deploy.StepDeploy, Kind: deploy.KindCheckpoint}.IdempotencyKey("d1")
	cp, err := p.Checkpoint(ctx, cpReq)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Deploy(ctx, both); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Activate(ctx, stepRequest(art, a, "d1", "1.0.0", "aaa", deploy.StepActivation, deploy.KindRun)); err != nil {
		t.Fatal(err)
	}
	rb := both
	rb.IdempotencyKey = deploy.StepKey{Step: deploy.StepDeploy, Kind: deploy.KindRollback}.IdempotencyKey("d1")
	_, err = p.Rollback(ctx, rb, cp)
	if !deploy.IsPermanent(err) || !strings.Contains(err.Error(), a) {
		t.Fatalf("got %v, want a permanent error naming %s", err, a)
	}
	for _, dir := range []string{a, b} {
		if _, err := os.Stat(filepath.Join(dir, releasesDir, "1.0.0", marker)); err != nil {
			t.Errorf("%s: the release is gone: %v", dir, err)
		}
	}
}

// A checkpoint's release removed since (by hand) cannot be put back in
// service: refused, and current left as it is.
func TestRollbackActivationReleaseGone(t *testing.T) {
	ctx := context.Background()
	target := t.TempDir()
	p := New("/")
	art := writeArchive(t, map[string]string{"v": "1"})
	if err := deployActivate(p, art, target); err != nil {
		t.Fatal(err)
	}
	cp := deploy.Checkpoint{Data: map[string]string{target: "0.9.0"}}
	_, err := p.Rollback(ctx, stepRequest(art, target, "d1", "1.0.0", "aaa", deploy.StepActivation, deploy.KindRollback), cp)
	if !deploy.IsPermanent(err) {
		t.Fatalf("got %v, want a permanent error", err)
	}
	if cur, _ := os.Readlink(filepath.Join(target, currentLink)); cur != filepath.Join(releasesDir, "1.0.0") {
		t.Fatalf("current -> %s", cur)
	}
}

// End-to-end tests count the journal's lines by operation name.
func TestRollbackJournal(t *testing.T) {
	ctx := context.Background()
	target := t.TempDir()
	p := New("/")
	if err := deployActivate(p, writeArchive(t, map[string]string{"v": "1"}), target); err != nil {
		t.Fatal(err)
	}
	art := writeArchive(t, map[string]string{"v": "2"})
	req := func(step string, kind deploy.StepKind) deploy.PluginRequest {
		return stepRequest(art, target, "d2", "2.0.0", "bbb", step, kind)
	}
	cpDeploy, err := p.Checkpoint(ctx, req(deploy.StepDeploy, deploy.KindCheckpoint))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Deploy(ctx, req(deploy.StepDeploy, deploy.KindRun)); err != nil {
		t.Fatal(err)
	}
	cpActivation, err := p.Checkpoint(ctx, req(deploy.StepActivation, deploy.KindCheckpoint))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Activate(ctx, req(deploy.StepActivation, deploy.KindRun)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Rollback(ctx, req(deploy.StepActivation, deploy.KindRollback), cpActivation); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Rollback(ctx, req(deploy.StepDeploy, deploy.KindRollback), cpDeploy); err != nil {
		t.Fatal(err)
	}
	want := "deploy 1.0.0,activate 1.0.0,deploy 2.0.0,activate 2.0.0,rollback 2.0.0,remove 2.0.0"
	if ops := strings.Join(journalOps(t, target), ","); ops != want {
		t.Fatalf("journal = %s\nwant %s", ops, want)
	}
}
