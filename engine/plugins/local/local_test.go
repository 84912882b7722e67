package local

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
)

func writeArchive(t *testing.T, files map[string]string, extra ...*tar.Header) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range extra {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
	}
	// Close writes the trailers, and fails if a body was shorter than its header.
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "a.tar.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func request(art, target, version, sha string) deploy.PluginRequest {
	return deploy.PluginRequest{
		DeploymentID: "d1", IdempotencyKey: "d1:deploy:run",
		Artifact: deploy.Artifact{Name: "hello", Version: version}, ArtifactPath: art, SHA256: sha,
		Targets: []deploy.Target{{Path: target}},
	}
}

// journalLines are the fields of the journal's lines: time, operation,
// deployment, target key, version.
func journalLines(dir string) ([][]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, journal))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var lines [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		if len(f) != 5 {
			return nil, fmt.Errorf("journal line %q: want 5 fields", l)
		}
		lines = append(lines, f)
	}
	return lines, nil
}

// journalOps are the journal's operations and versions.
func journalOps(t *testing.T, dir string) []string {
	t.Helper()
	lines, err := journalLines(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, f := range lines {
		ops = append(ops, f[1]+" "+f[4])
	}
	return ops
}

func TestDeployActivateIdempotent(t *testing.T) {
	ctx := context.Background()
	target := t.TempDir()
	p := New("/unused")
	art := writeArchive(t, map[string]string{"index.html": "v1", "sub/VERSION": "1.0.0"})
	req := request(art, target, "1.0.0", "aaa")
	for i := 0; i < 2; i++ {
		if _, err := p.Deploy(ctx, req); err != nil {
			t.Fatalf("deploy %d: %v", i, err)
		}
		if _, err := p.Activate(ctx, req); err != nil {
			t.Fatalf("activate %d: %v", i, err)
		}
	}
	got, err := os.ReadFile(filepath.Join(target, "current", "sub", "VERSION"))
	if err != nil || string(got) != "1.0.0" {
		t.Fatalf("current/sub/VERSION = %q, %v", got, err)
	}
	if ops := journalOps(t, target); strings.Join(ops, ",") != "deploy 1.0.0,activate 1.0.0" {
		t.Fatalf("journal = %v, want one deploy and one activate", ops)
	}

	art2 := writeArchive(t, map[string]string{"index.html": "v2"})
	// Same version, other content: refused, permanently.
	if _, err := p.Deploy(ctx, request(art2, target, "1.0.0", "ccc")); !deploy.IsPermanent(err) {
		t.Fatalf("redeploy with other content: %v, want permanent error", err)
	}
}

func TestUnsafeArchives(t *testing.T) {
	tests := map[string]string{
		"parent": "../evil",
		"abs":    "/etc/evil",
		"marker": marker,
	}
	for name, entry := range tests {
		t.Run(name, func(t *testing.T) {
			target := t.TempDir()
			art := writeArchive(t, map[string]string{entry: "x"})
			_, err := New("/").Deploy(context.Background(), request(art, target, "1.0.0", "a"))
			if !deploy.IsPermanent(err) {
				t.Fatalf("got %v, want a permanent error", err)
			}
		})
	}
	t.Run("symlink", func(t *testing.T) {
		art := writeArchive(t, nil, &tar.Header{Name: "link", Linkname: "/etc/passwd", Typeflag: tar.TypeSymlink})
		_, err := New("/").Deploy(context.Background(), request(art, t.TempDir(), "1.0.0", "a"))
		if !deploy.IsPermanent(err) {
			t.Fatalf("got %v, want a permanent error", err)
		}
	})
	t.Run("not an archive", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "x.tgz")
		if err := os.WriteFile(path, []byte{0x1f, 0x8b, 1, 2, 3}, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := CheckArchive(path, deploy.ArchiveLimits{}); !deploy.IsPermanent(err) {
			t.Fatalf("got %v, want a permanent error", err)
		}
	})
}

func TestValidateTargets(t *testing.T) {
	errs := New("/").ValidateTargets([]deploy.Target{{Path: "a"}, {Host: "h"}}, nil)
	if len(errs) != 2 || errs[0].Path != "targets[1].path" || errs[1].Path != "targets[1].host" {
		t.Fatalf("got %v", errs)
	}
}

func TestDeployOutputs(t *testing.T) {
	art := writeArchive(t, map[string]string{"index.html": "v1"})
	a, b := t.TempDir(), t.TempDir()
	tests := []struct {
		name    string
		targets []deploy.Target
		want    map[string]string
	}{
		{name: "one target", targets: []deploy.Target{{Path: a}}, want: map[string]string{
			"release": "1.0.0", "paths": filepath.Join(a, "releases", "1.0.0"),
			"release_path": filepath.Join(a, "releases", "1.0.0"),
			"targets":      `[{"path":"` + a + `"}]`,
		}},
		{name: "two targets, relative to the base directory", targets: []deploy.Target{{Path: a}, {Path: filepath.Base(b)}}, want: map[string]string{
			"release": "1.0.0", "paths": filepath.Join(a, "releases", "1.0.0") + "," + filepath.Join(b, "releases", "1.0.0"),
			"release_path": filepath.Join(a, "releases", "1.0.0"),
			"targets":      `[{"path":"` + a + `"},{"path":"` + b + `"}]`,
		}},
		{name: "no target", want: map[string]string{"release": "1.0.0", "paths": "", "targets": "[]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := request(art, "", "1.0.0", "aaa")
			req.Targets = tt.targets
			res, err := New(filepath.Dir(b)).Deploy(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Outputs, tt.want) {
				t.Fatalf("outputs = %v\nwant %v", res.Outputs, tt.want)
			}
			if len(res.Outputs) > deploy.MaxPluginOutputKeys {
				t.Fatalf("%d output keys, at most %d allowed", len(res.Outputs), deploy.MaxPluginOutputKeys)
			}
		})
	}
}
