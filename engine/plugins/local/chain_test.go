package local_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"manent.dev/manent/chains"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/plugins/local"
)

// A chain of local deploys: the outputs of the producer's deploy step pass
// the export check, and a consumer that imports them deploys to the same
// directories with the release path as a parameter.
func TestOutputsFeedAChain(t *testing.T) {
	ctx := context.Background()
	art := filepath.Join(t.TempDir(), "a.tar")
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: "f", Mode: 0o644, Size: 1, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(art, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dirs := []string{t.TempDir(), t.TempDir()}
	p := local.New("/")
	res, err := p.Deploy(ctx, deploy.PluginRequest{
		DeploymentID: "db-1", IdempotencyKey: "db-1:deploy:run", ArtifactPath: art, SHA256: "aaa",
		Artifact: deploy.Artifact{Name: "db", Version: "1.0.0"},
		Targets:  []deploy.Target{{Path: dirs[0]}, {Path: dirs[1]}},
	})
	if err != nil {
		t.Fatal(err)
	}
	exports, err := chains.CheckExports(map[string]deploy.ExportSpec{
		"dirs":    {From: "deploy.targets", Format: deploy.ExportTargets, Pattern: `/[^\x00]+`},
		"db_path": {From: "deploy.release_path", Pattern: `/[A-Za-z0-9._/-]+`},
	}, map[string]map[string]string{deploy.StepDeploy: res.Outputs})
	if err != nil {
		t.Fatalf("the local plugin's outputs are not valid exports: %v", err)
	}

	src := source{"db-1": {ID: "db-1", Tenant: "t", Application: "db", Environment: "dev", State: deploy.StateSuccess,
		Artifact: deploy.Artifact{Name: "db", Version: "1.0.0"}, Exports: exports}}
	d := &deploy.Descriptor{Tenant: "t", Application: "api", Environment: "dev", After: []string{"db-1"},
		Imports: map[string]deploy.Import{"db": {Deployment: "db-1"}},
		Deploy: deploy.DeploySection{
			TargetsFrom: []deploy.ImportRef{{Import: "db", Export: "dirs"}},
			ParamsFrom:  map[string]deploy.ImportRef{"db_path": {Import: "db", Export: "db_path"}},
		}}
	r, err := chains.Resolve(ctx, d, src)
	if err != nil {
		t.Fatal(err)
	}
	applied := chains.Apply(d, r)
	want := []deploy.Target{{Path: dirs[0]}, {Path: dirs[1]}}
	if !reflect.DeepEqual(applied.Deploy.Targets, want) || applied.Deploy.Params["db_path"] != filepath.Join(dirs[0], "releases", "1.0.0") {
		t.Fatalf("imported %+v", applied.Deploy)
	}
	if errs := p.ValidateTargets(applied.Deploy.Targets, applied.Deploy.Params); len(errs) > 0 {
		t.Fatalf("the local plugin refuses its own exported targets: %v", errs)
	}
	if r.Sources["import.db"] != "db-1@1.0.0" {
		t.Fatalf("sources = %v", r.Sources)
	}
}

type source map[string]chains.Producer

func (s source) Deployment(_ context.Context, id string) (chains.Producer, error) {
	p, ok := s[id]
	if !ok {
		return chains.Producer{}, deploy.Errorf(deploy.ENOTFOUND, "not found")
	}
	return p, nil
}

func (s source) InService(context.Context, string, string, string) ([]chains.Producer, error) {
	return nil, nil
}
