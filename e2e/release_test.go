package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// copyTree copies the files of src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		write(t, filepath.Join(dst, rel), string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestShopReleaseDemo is the walk-through of docs/releases.md with the real
// binaries: `manent release submit` follows the demo release to SUCCESS and
// `manent release status -o json` lists its four deploys and db's export.
func TestShopReleaseDemo(t *testing.T) {
	serverBin, cliBin := binaries(t)
	// The demo's targets are ../.manent/targets/... relative to manent.yml:
	// a copy of examples/ keeps them inside the test's directory.
	dir := t.TempDir()
	copyTree(t, filepath.Join(repoRoot(), "examples"), filepath.Join(dir, "examples"))
	srv := newServer(t, serverBin, filepath.Join(dir, "examples"))
	srv.start()

	_, stderr, code := cli(t, cliBin, srv.URL(), "demo-ci", "release", "submit",
		"-f", filepath.Join(dir, "examples/releases/shop.yml"), "--timeout", "2m")
	if code != 0 {
		t.Fatalf("release submit: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code := cli(t, cliBin, srv.URL(), "demo-ci", "release", "status", "shop-demo", "-o", "json")
	if code != 0 {
		t.Fatalf("release status: exit %d\n%s", code, stderr)
	}
	var st struct {
		State   string `json:"state"`
		Deploys []struct {
			Name    string `json:"name"`
			State   string `json:"state"`
			Exports []struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			} `json:"exports"`
		} `json:"deploys"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatalf("status JSON: %v\n%s", err, stdout)
	}
	if st.State != "SUCCESS" || len(st.Deploys) != 4 {
		t.Fatalf("release = %+v", st)
	}
	for _, d := range st.Deploys {
		if d.State != "SUCCESS" {
			t.Errorf("deploy %s: %s", d.Name, d.State)
		}
		if d.Name == "db" && (len(d.Exports) != 1 || d.Exports[0].Name != "release" || d.Exports[0].Value == "") {
			t.Errorf("db exports = %+v", d.Exports)
		}
	}
	// The release is in service on the targets.
	if _, err := os.Readlink(filepath.Join(dir, ".manent/targets/shop-web/staging/current")); err != nil {
		entries, _ := os.ReadDir(filepath.Join(dir, ".manent/targets"))
		t.Fatalf("web not in service: %v (targets: %v)", err, entries)
	}
}
