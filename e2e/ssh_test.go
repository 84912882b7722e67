package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"manent.dev/manent/internal/sshfleet"
)

// sshUsers are the hosts of the fleet, created once per machine (shared
// with the tests of internal/sshfleet); each test deploys under a directory
// of its own in their homes.
var sshUsers = []string{"manent-e2e-a", "manent-e2e-b", "manent-e2e-c"}

// uploadHold is how much a client may send on one connection before the
// armed gate holds it: far more than a session's commands, far less than
// the large artifact.
const uploadHold = 1 << 20

// sshHost is a target of the fleet: its user and its deploy directory in
// one environment.
type sshHost struct {
	user sshfleet.User
	dir  string
}

// TestSSHFleet deploys hello to three hosts of a loopback OpenSSH fleet
// (sshd of its own, three local users as the hosts) through the real
// server and CLI, and reads the result on each host's filesystem: a first
// version, a second, a third whose post-test fails and is rolled back on
// every host, a host that fails alone, a server killed with SIGKILL in the
// middle of an upload, which resumes without unpacking twice, and a
// changed host key, refused before any command runs.
func TestSSHFleet(t *testing.T) {
	sshfleet.Require(t)
	fleet := startFleet(t)
	// The crash environment reaches the fleet through the gate, which holds
	// an upload mid-way.
	g := newGate(t, fleet.Addr(), uploadHold)
	r := newRig(t, rigOptions{
		steps:       []string{"secrets", "artifacts", "deploy", "activation", "post-test"},
		maxRecovery: 3,
		extra: `plugins:
  ssh:
    known_hosts: known_hosts
    max_sessions_per_host: 4
    parallel: 10
    connect_timeout: 10s
`,
	})
	var known []string
	for _, port := range []int{fleet.Port, g.port()} {
		line, err := fleet.KnownHostsLine(port)
		if err != nil {
			t.Fatal(err)
		}
		known = append(known, line)
	}
	write(t, filepath.Join(r.dir, "known_hosts"), strings.Join(known, "\n")+"\n")
	key, err := os.ReadFile(fleet.DeployKey())
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(r.dir, "hello-deploy-key"), string(key))

	var broken atomic.Bool
	health := endpoint(t, func(w http.ResponseWriter, _ *http.Request) {
		if broken.Load() {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	base := "e2e-" + randomHex(t)
	staging := sshHosts(t, fleet, base+"/staging")
	crash := sshHosts(t, fleet, base+"/crash")
	partial := sshHosts(t, fleet, base+"/partial")
	r.env("staging", sshEnv(fleet, fleet.Port, base+"/staging", health+"/health"))
	r.env("crash", sshEnv(fleet, g.port(), base+"/crash", ""))
	r.env("partial", sshEnv(fleet, fleet.Port, base+"/partial", ""))
	for _, v := range []string{"1.0.0", "2.0.0", "3.0.0", "5.0.0"} {
		sshArtifact(t, r, v, 0)
	}
	// Large enough to be held mid-way, random so that gzip keeps it large.
	payload := sshArtifact(t, r, "4.0.0", 16<<20)
	r.srv.start()

	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"a first version on every host", func(t *testing.T) {
			st := r.deployFollowed(r.descriptor("hello-ssh-1", "staging", "1.0.0", ""))
			inService(t, staging, "1.0.0")
			wantJournals(t, staging, "deploy 1.0.0", "activate 1.0.0")
			if out := stepOutputs(t, r, st.ID)["deploy"]; !strings.HasSuffix(out["release_path"], "releases/1.0.0") {
				t.Errorf("deploy output = %v, want release_path .../releases/1.0.0", out)
			}
			for _, h := range staging {
				if cmds, err := fleet.Commands(h.user.Name); err != nil || len(cmds) == 0 {
					t.Errorf("%s: commands %q (%v): the deploy never went through sshd", h.user.Name, cmds, err)
				}
			}
		}},
		{"a second version", func(t *testing.T) {
			st := r.deployFollowed(r.descriptor("hello-ssh-2", "staging", "2.0.0", ""))
			inService(t, staging, "2.0.0")
			wantJournals(t, staging, "deploy 1.0.0", "activate 1.0.0", "deploy 2.0.0", "activate 2.0.0")
			released(t, staging, "1.0.0", true) // keep_releases is 5
			if out := stepOutputs(t, r, st.ID)["activation"]; out["previous_release"] != "1.0.0" {
				t.Errorf("activation output = %v, want previous_release 1.0.0", out)
			}
		}},
		{"a failing post-test rolls every host back", func(t *testing.T) {
			broken.Store(true)
			defer broken.Store(false)
			st, code := r.deployJSON(r.descriptor("hello-ssh-3", "staging", "3.0.0", ""))
			if code != 1 || st.State != "ERROR" || !strings.Contains(st.errorText(), "post-test") {
				t.Fatalf("exit %d, state %s (%s); want 1, ERROR in post-test", code, st.State, st.errorText())
			}
			var comps []string
			if st.Rollback != nil {
				for _, s := range st.Rollback.Steps {
					comps = append(comps, s.Name+" "+s.State)
				}
			}
			if st.Rollback == nil || st.Rollback.State != "completed" ||
				!slices.Equal(comps, []string{"rollback:activation SUCCESS", "rollback:deploy SUCCESS"}) {
				t.Fatalf("rollback = %+v, want completed: rollback:activation then rollback:deploy, both SUCCESS", st.Rollback)
			}
			inService(t, staging, "2.0.0")
			released(t, staging, "3.0.0", false)
			wantJournals(t, staging, "deploy 1.0.0", "activate 1.0.0", "deploy 2.0.0", "activate 2.0.0",
				"deploy 3.0.0", "activate 3.0.0", "rollback 3.0.0", "remove 3.0.0")
		}},
		{"one host that fails fails the step, with every host's result", func(t *testing.T) {
			// The second host's deploy directory is a file of root's: it
			// cannot create it, the other two can.
			bad := partial[1]
			write(t, bad.dir, "not a directory\n")
			st, code := r.deployJSON(r.descriptor("hello-ssh-partial", "partial", "1.0.0", ""))
			if code != 1 || st.State != "ERROR" || !strings.Contains(st.errorText(), bad.user.Name) {
				t.Fatalf("exit %d, state %s (%s); want 1, ERROR naming %s", code, st.State, st.errorText(), bad.user.Name)
			}
			out := stepOutputs(t, r, st.ID)["deploy"]["results"]
			var results []struct {
				User     string `json:"user"`
				Command  string `json:"command"`
				ExitCode *int   `json:"exit_code"`
				Error    string `json:"error"`
			}
			if err := json.Unmarshal([]byte(out), &results); err != nil {
				t.Fatalf("deploy's results output %q: %v", out, err)
			}
			var users []string
			for _, res := range results {
				users = append(users, res.User)
				if res.User != bad.user.Name {
					continue
				}
				if res.Error == "" || res.Command == "" || res.ExitCode == nil || *res.ExitCode == 0 {
					t.Errorf("result of %s = %+v, want its error, the command that failed and its exit code", res.User, res)
				}
			}
			if !slices.Equal(users, sshUsers) {
				t.Errorf("results of %q, want one per host: %q", users, sshUsers)
			}
			// The log says it too: which host, and how the command ended.
			if !slices.ContainsFunc(strings.Split(r.logText(st.ID), "\n"), func(l string) bool {
				return strings.Contains(l, bad.user.Name) && strings.Contains(l, "exit")
			}) {
				t.Errorf("no line of the deploy log names %s and an exit status:\n%s", bad.user.Name, r.logText(st.ID))
			}
		}},
		{"a server killed during the upload resumes without unpacking twice", func(t *testing.T) {
			g.arm()
			id := r.submit(r.descriptor("hello-ssh-crash", "crash", "4.0.0", ""))
			select {
			case <-g.held:
			case <-time.After(2 * time.Minute):
				t.Fatalf("no upload reached the gate\nserver:\n%s", r.srv.output())
			}
			r.srv.kill()
			g.open()
			r.srv.start()
			st := r.followToEnd(id)
			if st.State != "SUCCESS" {
				t.Fatalf("state %s (%s), want SUCCESS", st.State, st.errorText())
			}
			if runs := reruns(r.logText(id)); !slices.ContainsFunc(runs, func(l string) bool { return strings.Contains(l, "deploy runs again") }) {
				t.Fatalf("the kill did not land in the deploy step; the log says %q", runs)
			}
			inService(t, crash, "4.0.0")
			wantJournals(t, crash, "deploy 4.0.0", "activate 4.0.0")
			for _, h := range crash {
				if got := fileSHA(t, filepath.Join(h.dir, "releases/4.0.0/payload.bin")); got != payload {
					t.Errorf("%s: payload sha256 %s, want %s", h.user.Name, got, payload)
				}
				// No half upload or staging directory left among the releases.
				if names := dirNames(t, filepath.Join(h.dir, "releases")); !slices.Equal(names, []string{"4.0.0"}) {
					t.Errorf("%s: releases/ holds %q, want only 4.0.0", h.user.Name, names)
				}
			}
		}},
		{"a changed host key is refused before any command runs", func(t *testing.T) {
			if err := fleet.ChangeHostKey(); err != nil {
				t.Fatal(err)
			}
			offered, err := fleet.Fingerprint()
			if err != nil {
				t.Fatal(err)
			}
			before := commandCounts(t, fleet)
			st, code := r.deployJSON(r.descriptor("hello-ssh-5", "staging", "5.0.0", ""))
			if code != 1 || st.State != "ERROR" {
				t.Fatalf("exit %d, state %s (%s); want 1, ERROR", code, st.State, st.errorText())
			}
			var failed []string
			for _, s := range st.Steps {
				if s.Error == nil {
					continue
				}
				failed = append(failed, s.Name)
				if !strings.Contains(*s.Error, "127.0.0.1") || !strings.Contains(*s.Error, offered) {
					t.Errorf("step %s: error %q, want the host and the offered fingerprint %s", s.Name, *s.Error, offered)
				}
				// Every host is refused on its own, and the error names
				// each (three: no more than a step's error quotes).
				for _, u := range sshUsers {
					if !strings.Contains(*s.Error, u+"@") {
						t.Errorf("step %s: error %q does not name host %s", s.Name, *s.Error, u)
					}
				}
				if s.Attempts != 1 {
					t.Errorf("step %s ran %d times: a changed host key is permanent", s.Name, s.Attempts)
				}
			}
			if len(failed) != 1 {
				t.Fatalf("steps with an error: %q, want one", failed)
			}
			// When the step that failed has outputs (a checkpoint has
			// none), its results hold every host's.
			if out, ok := stepOutputs(t, r, st.ID)[failed[0]]["results"]; ok {
				var results []struct {
					User  string `json:"user"`
					Error string `json:"error"`
				}
				if err := json.Unmarshal([]byte(out), &results); err != nil {
					t.Fatalf("results output %q: %v", out, err)
				}
				var users []string
				for _, res := range results {
					users = append(users, res.User)
					if !strings.Contains(res.Error, offered) {
						t.Errorf("result of %s: error %q, want the offered fingerprint", res.User, res.Error)
					}
				}
				if !slices.Equal(users, sshUsers) {
					t.Errorf("results of %q, want one per host: %q", users, sshUsers)
				}
			}
			if after := commandCounts(t, fleet); !maps.Equal(before, after) {
				t.Errorf("commands per host %v before the deploy, %v after: want none run", before, after)
			}
			for _, line := range []string{"Accepted publickey", "Starting session"} {
				if strings.Contains(fleet.Log(), line) {
					t.Errorf("sshd logged %q after the host key changed:\n%s", line, fleet.Log())
				}
			}
			inService(t, staging, "2.0.0")
			released(t, staging, "5.0.0", false)
		}},
	}
	parent := t
	for _, s := range steps {
		ok := t.Run(s.name, func(t *testing.T) {
			// The rig's helpers fail the test they run in: this step.
			r.t, r.srv.t = t, t
			defer func() { r.t, r.srv.t = parent, parent }()
			s.run(t)
		})
		if !ok {
			return // each step starts where the one before left the hosts
		}
	}
}

// startFleet starts the test's fleet in a directory of its own under the
// system's temp directory (t.TempDir's parents are 0700: the users could
// not reach the forced command).
func startFleet(t *testing.T) *sshfleet.Fleet {
	t.Helper()
	return startFleetWith(t, sshfleet.Config{})
}

// startFleetWith is startFleet with cfg's other settings.
func startFleetWith(t *testing.T, cfg sshfleet.Config) *sshfleet.Fleet {
	t.Helper()
	dir, err := os.MkdirTemp("", "manent-e2e-fleet-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.RemoveAll(dir)
	})
	cfg.Dir, cfg.Users = dir, sshUsers
	f, err := sshfleet.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("sshd log:\n%s", f.Log())
			for _, u := range f.Users {
				cmds, _ := f.Commands(u.Name)
				t.Logf("commands of %s:\n\t%s", u.Name, strings.Join(cmds, "\n\t"))
			}
		}
	})
	return f
}

// sshHosts are the fleet's users with their deploy directory rel (relative
// to their homes), removed at the end of the test.
func sshHosts(t *testing.T, f *sshfleet.Fleet, rel string) []sshHost {
	t.Helper()
	var hosts []sshHost
	for _, u := range f.Users {
		hosts = append(hosts, sshHost{user: u, dir: filepath.Join(u.Home, rel)})
		top := filepath.Join(u.Home, strings.Split(rel, "/")[0])
		t.Cleanup(func() {
			os.RemoveAll(top)
		})
	}
	return hosts
}

// sshEnv is an environment configuration of the ssh plugin on the fleet's
// users at port, deploying to path; with a health check at healthURL, its
// post-test failure is rolled back.
func sshEnv(f *sshfleet.Fleet, port int, path, healthURL string) string {
	var b strings.Builder
	b.WriteString("plugin: ssh\ntargets:\n")
	for i, u := range f.Users {
		fmt.Fprintf(&b, "  - {host: 127.0.0.1, port: %d, user: %s, labels: {region: r%d}}\n", port, u.Name, i)
	}
	fmt.Fprintf(&b, `params:
  path: %s
  keep_releases: "5"
ssh:
  key_secret: deploy-key
secrets:
  - {name: deploy-key, ref: "file:hello-deploy-key"}
`, path)
	if healthURL != "" {
		fmt.Fprintf(&b, "health:\n  - url: %s\nrollback:\n  enabled: true\n  on: [post-test]\n", healthURL)
	}
	return b.String()
}

// sshArtifact writes hello-<version>.tar.gz, whose VERSION says its
// version, with a random payload.bin of payload bytes when payload > 0,
// and returns the payload's sha256.
func sshArtifact(t *testing.T, r *rig, version string, payload int) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	add := func(name string, body []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	add("VERSION", []byte(version+"\n"))
	add("index.html", []byte("<h1>Hello from manent</h1><p>Version "+version+"</p>\n"))
	sum := ""
	if payload > 0 {
		var seed [32]byte
		copy(seed[:], version)
		body := make([]byte, payload)
		_, _ = mrand.NewChaCha8(seed).Read(body) // never fails
		add("payload.bin", body)
		s := sha256.Sum256(body)
		sum = hex.EncodeToString(s[:])
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(r.dir, "artifacts", "hello-"+version+".tar.gz"), buf.String())
	return sum
}

// deployJSON submits a descriptor, follows it to its end and returns its
// final status and the CLI's exit code.
func (r *rig) deployJSON(path string) (deployStatus, int) {
	r.t.Helper()
	out, errOut, code := r.manent(tokenCI, "deploy", "-f", path, "-o", "json", "--timeout", "2m")
	var st deployStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		r.t.Fatalf("manent deploy -f %s: exit %d, status JSON: %v\nstdout:\n%s\nstderr:\n%s", path, code, err, out, errOut)
	}
	return st, code
}

// stepOutputs are the outputs of a deploy's steps, by step.
func stepOutputs(t *testing.T, r *rig, id string) map[string]map[string]string {
	t.Helper()
	body, code := r.get("/api/v1/deployments/" + id)
	if code != http.StatusOK {
		t.Fatalf("GET status of %s: %d %s", id, code, body)
	}
	var st struct {
		Steps []struct {
			Name   string            `json:"name"`
			Output map[string]string `json:"output"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("status JSON of %s: %v", id, err)
	}
	out := map[string]map[string]string{}
	for _, s := range st.Steps {
		out[s.Name] = s.Output
	}
	return out
}

// inService checks on each host's filesystem that current points at the
// release of version, unpacked there by the host's own user.
func inService(t *testing.T, hosts []sshHost, version string) {
	t.Helper()
	for _, h := range hosts {
		if cur := currentLink(t, h.dir); cur != "releases/"+version {
			t.Errorf("%s: current -> %q, want releases/%s", h.user.Name, cur, version)
			continue
		}
		file := filepath.Join(h.dir, "current", "VERSION")
		b, err := os.ReadFile(file)
		if err != nil || strings.TrimSpace(string(b)) != version {
			t.Errorf("%s: current/VERSION = %q (%v), want %s", h.user.Name, b, err, version)
			continue
		}
		info, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		if uid := info.Sys().(*syscall.Stat_t).Uid; int(uid) != h.user.UID {
			t.Errorf("%s: current/VERSION belongs to uid %d, want the host's user (%d)", h.user.Name, uid, h.user.UID)
		}
	}
}

// released checks whether the release of version is on every host.
func released(t *testing.T, hosts []sshHost, version string, want bool) {
	t.Helper()
	for _, h := range hosts {
		_, err := os.Stat(filepath.Join(h.dir, "releases", version))
		if got := err == nil; got != want {
			t.Errorf("%s: releases/%s there: %v (%v), want %v", h.user.Name, version, got, err, want)
		}
	}
}

// wantJournals checks the journal of every host: what the plugin did
// there, each operation once.
func wantJournals(t *testing.T, hosts []sshHost, want ...string) {
	t.Helper()
	for _, h := range hosts {
		if got := journalLines(t, h.dir); !slices.Equal(got, want) {
			t.Errorf("%s: journal = %q, want %q", h.user.Name, got, want)
		}
	}
}

// commandCounts is how many commands each user of the fleet ran.
func commandCounts(t *testing.T, f *sshfleet.Fleet) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, u := range f.Users {
		cmds, err := f.Commands(u.Name)
		if err != nil {
			t.Fatal(err)
		}
		out[u.Name] = len(cmds)
	}
	return out
}

func fileSHA(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
		return ""
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Error(err)
		return nil
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func randomHex(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
