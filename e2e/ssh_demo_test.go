package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"manent.dev/manent/internal/sshfleet"
)

// demoFleetUsers are the hosts of examples/envconfig/demo/hello/ssh.yml.
var demoFleetUsers = []string{"manent-fleet-eu", "manent-fleet-us", "manent-fleet-ap"}

// TestSSHDemo is the walk-through of docs/ssh.md on a copy of examples/:
// the fleet program of examples/ssh, manent-server dev, hello-ssh.yml,
// hello-ssh-next.yml and a rollback, with current read on every host;
// then the command step of docs/custom-steps.md's walk-through,
// hello-ssh-migrate.yml, whose db-migrate migrates the database on the
// first host only, with the tool examples/ssh installs. The demo's own
// fleet may be running on this machine: the copy's hello/ssh names the
// test's port, deploys under a directory of its own in the users' homes and
// migrates a database of its own, db-migrate runs the tool of the test's
// fleet with secrets in a directory of its own, and nothing else of the
// demo is changed.
func TestSSHDemo(t *testing.T) {
	sshfleet.Require(t)
	serverBin, cliBin := binaries(t)
	dir := t.TempDir()
	copyTree(t, filepath.Join(repoRoot(), "examples"), filepath.Join(dir, "examples"))
	// A copy of a fleet the developer runs is not this test's.
	if err := os.RemoveAll(filepath.Join(dir, "examples/ssh/fleet")); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	rel := "e2e-" + randomHex(t) + "/hello"
	database := "e2e_" + randomHex(t)
	envFile := filepath.Join(dir, "examples/envconfig/demo/hello/ssh.yml")
	b, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	env := string(b)
	for _, edit := range []struct {
		old, new string
		count    int
	}{
		{"port: 2222", fmt.Sprintf("port: %d", port), len(demoFleetUsers)},
		{"path: apps/hello", "path: " + rel, 1},
		{"db-migrate: {database: hello}", "db-migrate: {database: " + database + "}", 1},
	} {
		if n := strings.Count(env, edit.old); n != edit.count {
			t.Fatalf("examples/envconfig/demo/hello/ssh.yml has %q %d times, want %d:\n%s", edit.old, n, edit.count, env)
		}
		env = strings.ReplaceAll(env, edit.old, edit.new)
	}
	write(t, envFile, env)
	fleetDir := runDemoFleet(t, port, filepath.Join(dir, "examples"))
	secretsDir := "/dev/shm/manent-e2e-" + randomHex(t)
	t.Cleanup(func() { _ = os.RemoveAll(secretsDir) })
	manentYML := filepath.Join(dir, "examples/manent.yml")
	edit(t, manentYML, "/var/tmp/manent-ssh-fleet/tools/migrate", filepath.Join(fleetDir, "tools/migrate"), 2)
	edit(t, manentYML, "\n  custom:\n", "\n  custom:\n    secrets_dir: "+secretsDir+"\n", 1)
	var hosts []sshHost
	for _, name := range demoFleetUsers {
		u := lookupUser(t, name)
		hosts = append(hosts, sshHost{user: u, dir: filepath.Join(u.Home, rel)})
		top := filepath.Join(u.Home, strings.Split(rel, "/")[0])
		t.Cleanup(func() {
			os.RemoveAll(top)
			_ = os.RemoveAll(filepath.Join(u.Home, "db", database))
			_ = os.Remove(filepath.Join(u.Home, "db")) // when no other database is there
		})
	}
	url := startDev(t, serverBin, dir, freePort(t))
	run := func(token string, args ...string) {
		t.Helper()
		out, errOut, code := cli(t, cliBin, url, token, append(args, "--timeout", "2m")...)
		if code != 0 {
			t.Fatalf("manent %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
		}
	}

	run("demo-ci", "deploy", "-f", filepath.Join(dir, "examples/deploys/hello-ssh.yml"))
	inService(t, hosts, "1.0.0")
	run("demo-ci", "deploy", "-f", filepath.Join(dir, "examples/deploys/hello-ssh-next.yml"))
	inService(t, hosts, "1.2.0")
	released(t, hosts, "1.0.0", true)
	run("demo-admin", "rollback", "hello", "ssh")
	inService(t, hosts, "1.0.0")
	// The rollback found 1.0.0 unpacked and kept it: it only switched current.
	wantJournals(t, hosts, "deploy 1.0.0", "activate 1.0.0", "deploy 1.2.0", "activate 1.2.0", "activate 1.0.0")

	// docs/custom-steps.md: 1.2.0 again, its database migrated first, on
	// the first host only.
	out, errOut, code := cli(t, cliBin, url, "demo-ci", "deploy", "-f", filepath.Join(dir, "examples/deploys/hello-ssh-migrate.yml"),
		"-o", "json", "--timeout", "2m")
	var st struct {
		ID    string `json:"id"`
		State string `json:"state"`
		Steps []struct {
			Name, Type, State string
			Output            map[string]string `json:"output"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 || st.State != "SUCCESS" {
		t.Fatalf("deploy hello-ssh-migrate.yml: exit %d, %v\nstdout:\n%s\nstderr:\n%s", code, err, out, errOut)
	}
	var names []string
	for _, s := range st.Steps {
		names = append(names, s.Name)
		if s.Name == "db-migrate" && (s.Type != "command" || s.State != "SUCCESS" || s.Output["applied"] != "1") {
			t.Errorf("db-migrate %+v, want a command step that applied 1 migration", s)
		}
	}
	if i := slices.Index(names, "db-migrate"); i < 0 || names[i+1] != "deploy" {
		t.Errorf("steps %q, want db-migrate before deploy", names)
	}
	inService(t, hosts, "1.2.0")
	for i, h := range hosts {
		b, err := os.ReadFile(filepath.Join(h.user.Home, "db", database, "version"))
		if i == 0 && (err != nil || strings.TrimSpace(string(b)) != "1.2.0") {
			t.Errorf("%s: the database is at %q (%v), want 1.2.0", h.user.Name, b, err)
		}
		if i > 0 && !os.IsNotExist(err) {
			t.Errorf("%s: the database was migrated there too (%v): run_once is the first host only", h.user.Name, err)
		}
	}
	if log := logsOf(t, cliBin, url, st.ID); !strings.Contains(log, "migrating "+database+" from none to 1.2.0 as manent-fleet-eu") {
		t.Errorf("the deploy log does not show the migration:\n%s", log)
	}
}

// logsOf is the log of a deploy, as manent logs prints it.
func logsOf(t *testing.T, cliBin, url, id string) string {
	t.Helper()
	out, errOut, code := cli(t, cliBin, url, "demo-admin", "logs", id)
	if code != 0 {
		t.Fatalf("manent logs %s: exit %d\n%s", id, code, errOut)
	}
	return out
}

// runDemoFleet builds and runs examples/ssh on port, for examples, until
// the test ends, waits until it has said all it says at start, and
// returns its directory (-dir).
func runDemoFleet(t *testing.T, port int, examples string) string {
	t.Helper()
	bin := build(t, "./examples/ssh", "manent-demo-fleet", "one")
	fleetDir, err := os.MkdirTemp("", "manent-e2e-demo-fleet-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.RemoveAll(fleetDir)
	})
	cmd := exec.Command(bin, "-port", strconv.Itoa(port), "-dir", fleetDir, "-examples", examples)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var stderr bytes.Buffer
	cmd.Stderr = lockedWriter{&mu, &stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	up := make(chan struct{})
	var output []string
	exited := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		once := sync.Once{}
		for sc.Scan() {
			mu.Lock()
			output = append(output, sc.Text())
			mu.Unlock()
			// The last line it prints before it waits for a signal.
			if strings.HasPrefix(sc.Text(), "Ctrl-C stops the fleet") {
				once.Do(func() { close(up) })
			}
		}
		_ = cmd.Wait()
		close(exited)
	}()
	text := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(output, "\n") + "\n" + stderr.String()
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("examples/ssh:\n%s", text())
		}
	})
	select {
	case <-up:
	case <-exited:
		t.Fatalf("examples/ssh exited:\n%s", text())
	case <-time.After(time.Minute):
		t.Fatalf("examples/ssh did not start the fleet in a minute:\n%s", text())
	}
	for _, f := range []string{"deploy-key", "known_hosts"} {
		if _, err := os.Stat(filepath.Join(examples, "ssh/fleet", f)); err != nil {
			t.Fatalf("examples/ssh wrote no %s for the demo: %v", f, err)
		}
	}
	if !slices.ContainsFunc(strings.Split(text(), "\n"), func(l string) bool { return strings.Contains(l, "bin/manent deploy -f examples/deploys/hello-ssh.yml") }) {
		t.Errorf("examples/ssh does not say how to deploy to the fleet:\n%s", text())
	}
	return fleetDir
}

func lookupUser(t *testing.T, name string) sshfleet.User {
	t.Helper()
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		t.Fatalf("user %s: uid %q, gid %q", name, u.Uid, u.Gid)
	}
	return sshfleet.User{Name: name, Home: u.HomeDir, UID: uid, GID: gid}
}
