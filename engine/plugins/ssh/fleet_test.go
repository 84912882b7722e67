package ssh

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/sshexec"
	"manent.dev/manent/internal/sshtest"
)

// fleet is a set of logins on in-process SSH servers, each with its own
// home, all reached with one deploy key, and a known_hosts file that
// lists the servers.
type fleet struct {
	t          *testing.T
	servers    []*sshtest.Server
	users      map[string]*sshtest.User
	targets    []deploy.Target
	key        []byte
	knownHosts string
	path       string
	artifacts  map[string]artifact
}

type artifact struct{ path, sha256 string }

const keySecret = "deploy-key"

// newFleet starts one server per entry of logins, each with that many
// logins (web1, web2, ... across the fleet).
func newFleet(t *testing.T, logins ...int) *fleet {
	t.Helper()
	f := &fleet{t: t, users: map[string]*sshtest.User{}, path: "apps/hello",
		knownHosts: filepath.Join(t.TempDir(), "known_hosts"), artifacts: map[string]artifact{}}
	pub, key := sshtest.NewKey(t)
	f.key = key
	var known []string
	n := 0
	for _, count := range logins {
		srv := sshtest.Start(t)
		f.servers = append(f.servers, srv)
		known = append(known, srv.KnownHostsLine())
		for range count {
			n++
			u := srv.AddUser(fmt.Sprintf("web%d", n))
			srv.AuthorizeKey(u, pub)
			f.users[u.Name] = u
			f.targets = append(f.targets, deploy.Target{Host: srv.Host(), Port: srv.Port(), User: u.Name,
				Labels: map[string]string{"n": fmt.Sprint(n)}})
		}
	}
	f.writeKnownHosts(known...)
	return f
}

func (f *fleet) writeKnownHosts(lines ...string) {
	f.t.Helper()
	if err := os.WriteFile(f.knownHosts, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		f.t.Fatal(err)
	}
}

// plugin is a new instance, as a new worker process builds it.
func (f *fleet) plugin(tune ...func(*Options)) *Plugin {
	o := Options{SSH: sshexec.Options{KnownHosts: f.knownHosts}}
	for _, fn := range tune {
		fn(&o)
	}
	p := New(o)
	f.t.Cleanup(func() { _ = p.Close() })
	return p
}

func (f *fleet) secret(_ context.Context, name string) (string, error) {
	if name != keySecret {
		return "", deploy.Permanentf("no secret %s", name)
	}
	return string(f.key), nil
}

func (f *fleet) artifact(version string) artifact {
	f.t.Helper()
	if a, ok := f.artifacts[version]; ok {
		return a
	}
	path := writeArchive(f.t, map[string]string{"VERSION": version, "www/index.html": "<h1>" + version + "</h1>"})
	a := artifact{path: path, sha256: digest(f.t, path)}
	f.artifacts[version] = a
	return a
}

func digest(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func writeArchive(t *testing.T, files map[string]string, extra ...*tar.Header) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		body := files[name]
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

// dir is the target directory of a login, on its host's file system.
func (f *fleet) dir(t deploy.Target) string {
	return filepath.Join(f.users[t.User].Home, f.path)
}

// current reads the current symlink, and refuses one that does not lead
// to a release the plugin unpacked.
func (f *fleet) current(t deploy.Target) (string, error) {
	link, err := os.Readlink(filepath.Join(f.dir(t), "current"))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	version, ok := strings.CutPrefix(link, "releases/")
	if !ok || strings.Contains(version, "/") {
		return "", fmt.Errorf("current -> %s, not a release", link)
	}
	if _, err := os.Stat(filepath.Join(f.dir(t), link, ".manent-release")); err != nil {
		return "", fmt.Errorf("current -> %s: %w", link, err)
	}
	return version, nil
}

// releases lists releases/, without the staging directories (hidden).
func (f *fleet) releases(t deploy.Target) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(f.dir(t), "releases"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var versions []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			versions = append(versions, e.Name())
		}
	}
	return versions, nil
}

// journal is the target's journal, a line's fields each.
func (f *fleet) journal(t deploy.Target) ([][]string, error) {
	b, err := os.ReadFile(filepath.Join(f.dir(t), ".manent", "journal"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var lines [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		fs := strings.Fields(l)
		if len(fs) != 5 {
			return nil, fmt.Errorf("journal line %q: want 5 fields", l)
		}
		lines = append(lines, fs)
	}
	return lines, nil
}

// request is a request of a step to every target of the fleet.
func (f *fleet) request(id, step, version string, kind deploy.StepKind) deploy.PluginRequest {
	a := f.artifact(version)
	return deploy.PluginRequest{
		DeploymentID:   id,
		Step:           step,
		IdempotencyKey: deploy.StepKey{Step: step, Kind: kind}.IdempotencyKey(id),
		Tenant:         "demo", Application: "hello", Environment: "test",
		Artifact:     deploy.Artifact{Type: "application", Name: "hello", Version: version},
		ArtifactPath: a.path, SHA256: a.sha256,
		Targets: f.targets,
		Params:  map[string]string{"path": f.path},
		SSH:     &deploy.SSHLogin{KeySecret: keySecret},
		Secret:  f.secret,
		Log:     func(format string, args ...any) { f.t.Logf("%s %s: %s", id, step, fmt.Sprintf(format, args...)) },
	}
}
