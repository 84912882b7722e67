package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"manent.dev/manent/config"
)

func TestShowPaths(t *testing.T) {
	c, err := config.Parse([]byte(`
server: {work_dir: /var/lib/manent/work}
envconfig: {dir: /etc/manent/envconfig}
artifacts: {file_root: artifacts}
secrets: {file_root: /etc/manent/secrets}
`), "/srv/manent")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{"open /var/lib/manent/work/hello-1/artifact: permission denied", "open <work_dir>/hello-1/artifact: permission denied"},
		{"load envconfig demo/hello/staging: open /etc/manent/envconfig/demo/hello/staging.yml: EACCES",
			"load envconfig demo/hello/staging: open <envconfig.dir>/demo/hello/staging.yml: EACCES"},
		{"read /srv/manent/artifacts/hello.tgz", "read <artifacts.file_root>/hello.tgz"},
		{"/etc/manent/secrets/db: no such file", "<secrets.file_root>/db: no such file"},
		// The most specific directory wins; others under manent.yml's own.
		{"mkdir /srv/manent/targets/hello/releases: read-only file system", "mkdir <config dir>/targets/hello/releases: read-only file system"},
		{`rename "/var/lib/manent/work" "/var/lib/manent/work.old"`, `rename "<work_dir>" "/var/lib/manent/work.old"`},
		// A directory whose name only starts like a root's is not under it.
		{"/var/lib/manent/workshop/x and /srv/manentx", "/var/lib/manent/workshop/x and /srv/manentx"},
		{"/x/var/lib/manent/work/a", "/x/var/lib/manent/work/a"},
		{"no path here", "no path here"},
	}
	for _, tt := range tests {
		if got := c.ShowPaths(tt.in); got != tt.want {
			t.Errorf("ShowPaths(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestWorkDirOfTheInstallation: without server.work_dir, the working
// directories are the installation's, under its data directory, never a
// directory every server of the host shares.
func TestWorkDirOfTheInstallation(t *testing.T) {
	dir := t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, doc, dataDir, want string
		chosen                   bool
	}{
		{name: "left out", doc: "server: {}\n", dataDir: filepath.Join(dir, "data"), want: filepath.Join(dir, "data", "work"), chosen: true},
		{name: "empty", doc: "server: {work_dir: ''}\n", dataDir: filepath.Join(dir, "data"), want: filepath.Join(dir, "data", "work"), chosen: true},
		{name: "relative data directory", doc: "", dataDir: ".manent", want: filepath.Join(wd, ".manent", "work"), chosen: true},
		{name: "configured", doc: "server: {work_dir: scratch}\n", dataDir: filepath.Join(dir, "data"), want: filepath.Join(dir, "scratch")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Parse([]byte(tt.doc), dir)
			if err != nil {
				t.Fatal(err)
			}
			chosen, err := c.UseDataDir(tt.dataDir)
			if err != nil {
				t.Fatal(err)
			}
			if c.Server.WorkDir != tt.want || chosen != tt.chosen {
				t.Errorf("work_dir %q (chosen %v), want %q (%v)", c.Server.WorkDir, chosen, tt.want, tt.chosen)
			}
		})
	}
}
