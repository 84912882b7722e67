package e2e

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"manent.dev/manent/internal/sshfleet"
)

// migrateScript is the program of the command step of TestCommandStepOnOpenSSH:
// $1, the deploy's stepParams.db-migrate.mode, says what a run does; it
// counts its runs per deploy in the state directory STATE. In the mode
// watched, its first run of a deploy says where its attempt's directory
// is, and waits until the test lets it go (or the test kills it).
const migrateScript = `#!/bin/sh
# The program of the e2e command step db-migrate (e2e/customsteps_ssh_test.go).
set -eu
here=STATE
runs=$here/$MANENT_DEPLOYMENT_ID.runs
n=$(($(cat "$runs" 2>/dev/null || echo 0) + 1))
echo "$n" >"$runs"
echo "run $n of $MANENT_STEP on $MANENT_TARGET, mode $1"
case $1 in
watched)
	if [ "$n" -eq 1 ]; then
		printf '%s %s\n' "$$" "$(dirname "$MANENT_OUTPUT")" >"$here/$MANENT_DEPLOYMENT_ID.ready"
		read -r line <"$here/$MANENT_DEPLOYMENT_ID.go"
	fi
	;;
tempfail)
	if [ "$n" -lt 2 ]; then
		echo "the database is locked: later" >&2
		exit 75
	fi
	;;
fail)
	echo "migration 3 failed" >&2
	exit 3
	;;
undeclared)
	echo rows=12 >>"$MANENT_OUTPUT"
	;;
esac
echo applied=3 >>"$MANENT_OUTPUT"
`

// commandStep is db-migrate in manent.yml: between deploy and activation,
// once per deploy on the first target, the program checked by its SHA-256.
const commandStep = `{name: db-migrate, mode: mandatory, type: command, max_retries: 1, timeout: 1m, secrets: [db-admin], ` +
	`ssh: {key_secret: deploy-key}, params: {mode: {pattern: "[a-z]+", required: true}, database: {pattern: "[a-z0-9_]+", required: true}}, ` +
	`outputs: {applied: {pattern: "[0-9]{1,6}"}}, run: {run_once: true, sha256: %s, command: [%q, "{{ .Params.mode }}"]}}`

// commandRig is a server whose pipeline runs db-migrate on three hosts of
// an OpenSSH fleet, and what the test watches on them.
type commandRig struct {
	*rig
	fleet *sshfleet.Fleet
	hosts []sshHost
	// program is the script on the hosts, state where it reports,
	// secretsDir pipeline.custom.secrets_dir.
	program, state, secretsDir string
	// secret is db-admin's value, database the parameter that the
	// environment configuration gives: neither may show in ps.
	secret, database string
}

func newCommandRig(t *testing.T) *commandRig {
	t.Helper()
	fleet := startFleet(t)
	c := &commandRig{fleet: fleet, secret: "e2e-db-admin-" + randomHex(t), database: "e2e_db_" + randomHex(t)}
	scratch, err := os.MkdirTemp("", "manent-e2e-command-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(scratch) })
	c.state, c.program = filepath.Join(scratch, "state"), filepath.Join(scratch, "migrate")
	// The hosts' users run the program and write their reports; the
	// secrets directory is root's, 1777, as docs/custom-steps.md advises
	// where several logins share a host.
	mkdirMode(t, scratch, 0o755)
	mkdirMode(t, c.state, 0o777)
	write(t, c.program, strings.ReplaceAll(migrateScript, "STATE", c.state))
	if err := os.Chmod(c.program, 0o755); err != nil {
		t.Fatal(err)
	}
	c.secretsDir = "/dev/shm/manent-e2e-" + randomHex(t)
	mkdirMode(t, c.secretsDir, 0o777|os.ModeSticky)
	t.Cleanup(func() { _ = os.RemoveAll(c.secretsDir) })

	c.rig = newRig(t, rigOptions{
		steps:       []string{"secrets", "artifacts", "deploy", fmt.Sprintf(commandStep, c.programSHA(t), c.program), "activation"},
		maxRecovery: 3,
		pipeline: fmt.Sprintf("  custom: {known_hosts: known_hosts, secrets_dir: %s}\n"+
			"  descriptor_policy: {step_params: {db-migrate: [mode]}}\n", c.secretsDir),
		extra: "plugins:\n  ssh:\n    known_hosts: known_hosts\n",
	})
	line, err := fleet.KnownHostsLine(fleet.Port)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(c.dir, "known_hosts"), line+"\n")
	key, err := os.ReadFile(fleet.DeployKey())
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(c.dir, "hello-deploy-key"), string(key))
	write(t, filepath.Join(c.dir, "db-admin"), c.secret+"\n")
	base := "e2e-" + randomHex(t) + "/cmd"
	c.hosts = sshHosts(t, fleet, base)
	var env strings.Builder
	env.WriteString("plugin: ssh\ntargets:\n")
	for _, u := range fleet.Users {
		fmt.Fprintf(&env, "  - {host: 127.0.0.1, port: %d, user: %s}\n", fleet.Port, u.Name)
	}
	fmt.Fprintf(&env, `params: {path: %s, keep_releases: "5"}
ssh: {key_secret: deploy-key}
step_params:
  db-migrate: {database: %s}
secrets:
  - {name: deploy-key, ref: "file:hello-deploy-key"}
  - {name: db-admin, ref: "file:db-admin"}
rollback: {enabled: true, on: [db-migrate]}
`, base, c.database)
	c.env("cmd", env.String())
	for _, v := range []string{"1.0.0", "2.0.0", "3.0.0", "4.0.0"} {
		sshArtifact(t, c.rig, v, 0)
	}
	c.srv.start()
	return c
}

func (c *commandRig) programSHA(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(c.program)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// descriptor is a deploy of hello <version> whose db-migrate runs in mode.
func (c *commandRig) descriptor(id, version, mode string) string {
	return c.rig.descriptor(id, "cmd", version, "stepParams:\n  db-migrate: {mode: "+mode+"}\n")
}

// runs is how often the program ran for a deploy.
func (c *commandRig) runs(t *testing.T, id string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.state, id+".runs"))
	if os.IsNotExist(err) {
		return 0
	}
	n, err2 := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || err2 != nil {
		t.Fatalf("runs of %s: %q, %v", id, b, err)
	}
	return n
}

// watch makes the FIFOs of a deploy in mode watched: ready, which its
// first run writes, and go, which lets it finish.
func (c *commandRig) watch(t *testing.T, id string) (ready <-chan watched, release func()) {
	t.Helper()
	for _, f := range []string{".ready", ".go"} {
		path := filepath.Join(c.state, id+f)
		if err := syscall.Mkfifo(path, 0o666); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	// Open for reading and writing, so that neither side waits for the
	// other to open it: a read waits for the line.
	f, err := os.OpenFile(filepath.Join(c.state, id+".ready"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	ch := make(chan watched, 1)
	go func() {
		line, err := bufio.NewReader(f).ReadString('\n')
		var w watched
		if _, serr := fmt.Sscanf(line, "%d %s", &w.pid, &w.dir); err != nil || serr != nil {
			close(ch)
			return
		}
		ch <- w
	}()
	return ch, func() {
		// Opening for writing waits for the program to open it for
		// reading, which it does once it reported: the line then reaches
		// it even though the test closes its end at once.
		done := make(chan error, 1)
		go func() {
			g, err := os.OpenFile(filepath.Join(c.state, id+".go"), os.O_WRONLY, 0)
			if err == nil {
				_, err = g.WriteString("go\n")
				err = errors.Join(err, g.Close())
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("the program of %s never waited to be let go", id)
		}
	}
}

// watched is a run of the program that waits: its process and its
// attempt's directory.
type watched struct {
	pid int
	dir string
}

// awaitRun waits until the first run of a deploy in mode watched reported.
func (c *commandRig) awaitRun(t *testing.T, id string, ready <-chan watched) watched {
	t.Helper()
	select {
	case w, ok := <-ready:
		if !ok {
			t.Fatalf("the program of %s reported nothing that reads", id)
		}
		return w
	case <-time.After(2 * time.Minute):
		t.Fatalf("the program of %s did not run in 2 minutes: %+v\nserver:\n%s", id, c.status(id), c.srv.output())
	}
	return watched{}
}

// checkNothingLeft checks that no directory of any attempt is left in
// secrets_dir, whose deploy directories go once empty.
func (c *commandRig) checkNothingLeft(t *testing.T) {
	t.Helper()
	entries, err := os.ReadDir(c.secretsDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("secrets_dir %s holds %q after the run, want nothing", c.secretsDir, names)
	}
}

func mkdirMode(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
}

// TestCommandStepOnOpenSSH runs a command step through the real server and
// CLI on three hosts of a loopback OpenSSH fleet, between deploy and
// activation, once per deploy on the first host: during the run its
// secrets are in a directory of its own, 0700 with 0600 files, and neither
// they nor its parameters show in ps; after it nothing is left; exit 75 is
// tried again, exit 3 fails at once and the deploy is rolled back, as is
// an output the step does not declare and a program whose SHA-256 is not
// run.sha256's (which never runs); a server killed with SIGKILL while the
// command runs runs it again once restarted, removes the directory of the
// attempt it cut short, and ends as the run that was not interrupted.
func TestCommandStepOnOpenSSH(t *testing.T) {
	sshfleet.Require(t)
	c := newCommandRig(t)
	first := c.fleet.Users[0]
	var uninterrupted deployStatus

	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"a run: its directory, ps, its output, nothing left", func(t *testing.T) {
			ready, release := c.watch(t, "cmd-1")
			id := c.submit(c.descriptor("cmd-1", "1.0.0", "watched"))
			w := c.awaitRun(t, id, ready)
			checkAttemptDir(t, w.dir, filepath.Join(c.secretsDir, id, "db-migrate"), first, c.secret)
			ps, err := exec.Command("ps", "-eo", "args").Output()
			if err != nil {
				t.Fatal(err)
			}
			release()
			if !strings.Contains(string(ps), c.program+" watched") {
				t.Fatalf("ps does not show the program while it runs, so it proves nothing:\n%s", ps)
			}
			for _, v := range []string{c.secret, c.database} {
				if strings.Contains(string(ps), v) {
					t.Errorf("ps shows %q while the command runs", v)
				}
			}
			st := c.followToEnd(id)
			if st.State != "SUCCESS" {
				t.Fatalf("state %s (%s), want SUCCESS", st.State, st.errorText())
			}
			uninterrupted = st
			if out := stepOutputs(t, c.rig, id)["db-migrate"]; out["applied"] != "3" || len(out) != 1 {
				t.Errorf("db-migrate's output %v, want applied=3", out)
			}
			if _, err := os.Stat(w.dir); !os.IsNotExist(err) {
				t.Errorf("the attempt's directory is still there after the run: %v", err)
			}
			c.checkNothingLeft(t)
			// run_once: the first host only, once; and what it printed is
			// in the deploy log, under its target.
			if n := c.runs(t, id); n != 1 {
				t.Errorf("the program ran %d times, want once", n)
			}
			for _, u := range c.fleet.Users {
				cmds, err := c.fleet.Commands(u.Name)
				if err != nil {
					t.Fatal(err)
				}
				// A command line is recorded up to 500 bytes: the
				// attempt's directory comes before the program.
				ran := slices.ContainsFunc(cmds, func(cmd string) bool { return strings.Contains(cmd, c.secretsDir) })
				if ran != (u.Name == first.Name) {
					t.Errorf("%s ran the program: %v, want only %s", u.Name, ran, first.Name)
				}
				for _, cmd := range cmds {
					if strings.Contains(cmd, c.secret) || strings.Contains(cmd, c.database) {
						t.Errorf("a command line on %s holds a secret or a parameter: %q", u.Name, cmd)
					}
				}
			}
			if log := c.logText(id); !strings.Contains(log, first.Name+"@127.0.0.1") || !strings.Contains(log, "run 1 of db-migrate") ||
				strings.Contains(log, c.secret) {
				t.Errorf("the deploy log does not show the program's line under its target, or shows the secret:\n%s", log)
			}
			inService(t, c.hosts, "1.0.0")
		}},
		{"exit 75 is tried again", func(t *testing.T) {
			st := c.deployFollowed(c.descriptor("cmd-2", "2.0.0", "tempfail"))
			if s := st.step("db-migrate"); s.State != "SUCCESS" || s.Attempts != 2 {
				t.Errorf("db-migrate %s after %d attempts, want SUCCESS after 2", s.State, s.Attempts)
			}
			if n := c.runs(t, st.ID); n != 2 {
				t.Errorf("the program ran %d times, want twice", n)
			}
			c.checkNothingLeft(t)
			inService(t, c.hosts, "2.0.0")
		}},
		{"another exit status fails at once and rolls back", func(t *testing.T) {
			st, code := c.deployJSON(c.descriptor("cmd-3", "3.0.0", "fail"))
			s := st.step("db-migrate")
			if code != 1 || st.State != "ERROR" || s.Attempts != 1 || s.Error == nil || !strings.Contains(*s.Error, "exited with status 3") {
				t.Fatalf("exit %d, state %s, db-migrate %+v; want 1, ERROR, one attempt that exited with status 3", code, st.State, s)
			}
			checkRolledBack(t, st)
			released(t, c.hosts, "3.0.0", false)
			inService(t, c.hosts, "2.0.0")
			c.checkNothingLeft(t)
		}},
		{"an output the step does not declare fails it", func(t *testing.T) {
			st, code := c.deployJSON(c.descriptor("cmd-4", "3.0.0", "undeclared"))
			s := st.step("db-migrate")
			if code != 1 || st.State != "ERROR" || s.Attempts != 1 || s.Error == nil ||
				!strings.Contains(*s.Error, `"rows"`) || !strings.Contains(*s.Error, "does not declare") {
				t.Fatalf("exit %d, state %s, db-migrate %+v; want 1, ERROR, one attempt refused for rows", code, st.State, s)
			}
			if out := stepOutputs(t, c.rig, st.ID)["db-migrate"]; len(out) != 0 {
				t.Errorf("db-migrate's output %v, want none", out)
			}
			checkRolledBack(t, st)
			inService(t, c.hosts, "2.0.0")
			c.checkNothingLeft(t)
		}},
		{"a program that is not run.sha256's never runs", func(t *testing.T) {
			b, err := os.ReadFile(c.program)
			if err != nil {
				t.Fatal(err)
			}
			write(t, c.program, string(b)+"# changed on the host\n")
			defer write(t, c.program, string(b))
			st, code := c.deployJSON(c.descriptor("cmd-5", "3.0.0", "watched"))
			s := st.step("db-migrate")
			if code != 1 || st.State != "ERROR" || s.Attempts != 1 || s.Error == nil || !strings.Contains(*s.Error, "run.sha256 does not match") {
				t.Fatalf("exit %d, state %s, db-migrate %+v; want 1, ERROR, one attempt refused on run.sha256", code, st.State, s)
			}
			if n := c.runs(t, st.ID); n != 0 {
				t.Errorf("the program ran %d times, want never", n)
			}
			checkRolledBack(t, st)
			inService(t, c.hosts, "2.0.0")
			c.checkNothingLeft(t)
		}},
		{"a server killed while the command runs runs it again", func(t *testing.T) {
			ready, _ := c.watch(t, "cmd-6")
			id := c.submit(c.descriptor("cmd-6", "4.0.0", "watched"))
			w := c.awaitRun(t, id, ready)
			// The cut-off run waits on its FIFO for good: it goes with the test.
			t.Cleanup(func() { _ = syscall.Kill(w.pid, syscall.SIGKILL) })
			c.srv.kill()
			if _, err := os.Stat(filepath.Join(w.dir, "secrets", "db-admin")); err != nil {
				t.Fatalf("the cut-off attempt left no secret behind, so the test proves nothing: %v", err)
			}
			c.srv.start()
			st := c.followToEnd(id)
			if st.State != "SUCCESS" {
				t.Fatalf("state %s (%s), want SUCCESS", st.State, st.errorText())
			}
			if runs := reruns(c.logText(id)); !slices.ContainsFunc(runs, func(l string) bool { return strings.Contains(l, "db-migrate runs again") }) {
				t.Fatalf("the kill did not land in db-migrate; the log says %q", runs)
			}
			if n := c.runs(t, id); n != 2 {
				t.Errorf("the program ran %d times, want twice: the cut-off run and the one after the restart", n)
			}
			if _, err := os.Stat(w.dir); !os.IsNotExist(err) {
				t.Errorf("the cut-off attempt's directory %s is still there: %v", w.dir, err)
			}
			c.checkNothingLeft(t)
			if got, want := stepSummary(st), stepSummary(uninterrupted); !slices.Equal(got, want) {
				t.Errorf("steps %q, want those of the run that was not interrupted: %q", got, want)
			}
			if out := stepOutputs(t, c.rig, id)["db-migrate"]; out["applied"] != "3" {
				t.Errorf("db-migrate's output %v, want applied=3", out)
			}
			inService(t, c.hosts, "4.0.0")
		}},
	}
	parent := t
	for _, s := range steps {
		ok := t.Run(s.name, func(t *testing.T) {
			c.t, c.srv.t = t, t
			defer func() { c.t, c.srv.t = parent, parent }()
			s.run(t)
		})
		if !ok {
			return // each step starts where the one before left the hosts
		}
	}
}

// checkAttemptDir checks, as root, the directory of a running attempt:
// under the step's directory, the login's and 0700 from the step down,
// each file 0600, the secret byte for byte.
func checkAttemptDir(t *testing.T, dir, stepDir string, u sshfleet.User, secret string) {
	t.Helper()
	if filepath.Dir(dir) != stepDir {
		t.Fatalf("the attempt's directory is %s, want one under %s", dir, stepDir)
	}
	for _, f := range []struct {
		rel  string
		mode os.FileMode
	}{
		{"..", 0o700}, {".", 0o700}, {"env", 0o600}, {"output", 0o600}, {"secrets", 0o700}, {"secrets/db-admin", 0o600},
	} {
		path := filepath.Join(dir, f.rel)
		info, err := os.Lstat(path)
		if err != nil {
			t.Errorf("%s: %v", f.rel, err)
			continue
		}
		if info.Mode().Perm() != f.mode || info.Mode().Type() == os.ModeSymlink {
			t.Errorf("%s is %v, want %v", f.rel, info.Mode(), f.mode)
		}
		if uid := info.Sys().(*syscall.Stat_t).Uid; int(uid) != u.UID {
			t.Errorf("%s belongs to uid %d, want %s's (%d)", f.rel, uid, u.Name, u.UID)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "secrets/db-admin")); err != nil || string(b) != secret {
		t.Errorf("secrets/db-admin holds %d bytes (%v), want the secret as it is", len(b), err)
	}
}

// checkRolledBack: the rollback undid the deploy step, and only it.
func checkRolledBack(t *testing.T, st deployStatus) {
	t.Helper()
	var comps []string
	if st.Rollback != nil {
		for _, s := range st.Rollback.Steps {
			comps = append(comps, s.Name+" "+s.State)
		}
	}
	if st.Rollback == nil || st.Rollback.State != "completed" || !slices.Equal(comps, []string{"rollback:deploy SUCCESS"}) {
		t.Errorf("rollback %+v (%q), want completed: rollback:deploy SUCCESS", st.Rollback, comps)
	}
}

// stepSummary is each step of a status with its state and attempts.
func stepSummary(st deployStatus) []string {
	var out []string
	for _, s := range st.Steps {
		out = append(out, fmt.Sprintf("%s %s %d", s.Name, s.State, s.Attempts))
	}
	return out
}
