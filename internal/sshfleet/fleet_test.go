package sshfleet

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testUsers are the hosts of the fleets of tests, shared with e2e: they
// are created once per machine, and each fleet has its own directory.
var testUsers = []string{"manent-e2e-a", "manent-e2e-b"}

func startFleet(t *testing.T) *Fleet {
	t.Helper()
	return startFleetWith(t, Config{})
}

// startFleetWith starts a fleet of testUsers with cfg's other settings.
func startFleetWith(t *testing.T, cfg Config) *Fleet {
	t.Helper()
	Require(t)
	dir, err := os.MkdirTemp("", "manent-fleet-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	cfg.Dir, cfg.Users = dir, testUsers
	f, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("sshd log:\n%s", f.Log())
		}
	})
	return f
}

// ssh runs OpenSSH's client against the fleet as user, with the deploy key
// and the fleet's known_hosts (nothing else: no agent, no config).
func ssh(f *Fleet, user string, args ...string) *exec.Cmd {
	base := []string{"-F", "none", "-i", f.DeployKey(), "-p", strconv.Itoa(f.Port),
		"-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=yes",
		"-o", "UserKnownHostsFile=" + f.KnownHosts(), "-o", "GlobalKnownHostsFile=/dev/null",
		user + "@127.0.0.1"}
	return exec.Command("ssh", append(base, args...)...)
}

// TestFleetRunsAndRecordsCommands: each user of the fleet runs a command
// with the deploy key, checked against known_hosts, in its own account
// and home; the forced command records it; sftp goes through it too.
func TestFleetRunsAndRecordsCommands(t *testing.T) {
	f := startFleet(t)
	for _, u := range f.Users {
		out, err := ssh(f, u.Name, `id -un; pwd`).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh %s: %v\n%s", u.Name, err, out)
		}
		if want := u.Name + "\n" + u.Home + "\n"; string(out) != want {
			t.Errorf("ssh %s printed %q, want %q", u.Name, out, want)
		}
	}
	sftp := exec.Command("sftp", "-F", "none", "-i", f.DeployKey(), "-P", strconv.Itoa(f.Port), "-b", "-",
		"-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile="+f.KnownHosts(),
		f.Users[0].Name+"@127.0.0.1")
	sftp.Stdin = strings.NewReader("pwd\n")
	if out, err := sftp.CombinedOutput(); err != nil || !strings.Contains(string(out), f.Users[0].Home) {
		t.Fatalf("sftp: %v\n%s", err, out)
	}
	for i, u := range f.Users {
		want := []string{"id -un; pwd"}
		if i == 0 {
			want = append(want, sftpServer)
		}
		if got, err := f.Commands(u.Name); err != nil || !slices.Equal(got, want) {
			t.Errorf("commands of %s = %q, %v; want %q", u.Name, got, err, want)
		}
	}
	if n := strings.Count(f.Log(), "Accepted publickey for "); n != 3 {
		t.Errorf("sshd accepted %d logins, want 3:\n%s", n, f.Log())
	}
}

// TestTimeline: with Config.Timeline the forced command records when each
// session's command started and ended, and how it exited, by the host's
// clock; the command still gets its standard input and its exit status
// reaches the client, and the command log is kept as without it.
func TestTimeline(t *testing.T) {
	f := startFleetWith(t, Config{Timeline: true})
	user := f.Users[0].Name
	before := time.Now()
	cmd := ssh(f, user, "read line; printf '%s' \"$line\"; sleep 0.2; exit 3")
	cmd.Stdin = strings.NewReader("hello\n")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || string(out) != "hello" {
		t.Fatalf("ssh: %v, printed %q; want exit status 3 and hello", err, out)
	}
	if out, err := ssh(f, user, "true").CombinedOutput(); err != nil {
		t.Fatalf("ssh true: %v\n%s", err, out)
	}
	tl, err := f.Timeline(user)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl) != 2 {
		t.Fatalf("timeline = %+v, want two sessions", tl)
	}
	first, second := tl[0], tl[1]
	if first.Command != "read line; printf '%s' \"$line\"; sleep 0.2; exit 3" || !first.Ended || first.Status != 3 ||
		first.Start.Before(before.Add(-time.Second)) || first.End.Sub(first.Start) < 200*time.Millisecond {
		t.Errorf("first session = %+v, want the command, ended with status 3 after at least 200ms", first)
	}
	if second.Command != "true" || !second.Ended || second.Status != 0 || second.Start.Before(first.End) {
		t.Errorf("second session = %+v, want true, ended with 0, after the first", second)
	}
	if got, err := f.Commands(user); err != nil || len(got) != 2 {
		t.Errorf("commands = %q, %v; want both", got, err)
	}
	if _, err := startFleet(t).Timeline(user); err == nil {
		t.Error("a fleet without Config.Timeline gave a timeline")
	}
}

func TestParseTimeline(t *testing.T) {
	got, err := parseTimeline("start 10 1000 a b\nstart 11 2000 c\nend 10 3000 0\nstart 10 4000 d\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []Session{
		{Command: "a b", Start: time.Unix(0, 1000), End: time.Unix(0, 3000), Ended: true},
		{Command: "c", Start: time.Unix(0, 2000)},
		{Command: "d", Start: time.Unix(0, 4000)},
	}
	if !slices.EqualFunc(got, want, func(a, b Session) bool {
		return a.Command == b.Command && a.Start.Equal(b.Start) && a.End.Equal(b.End) && a.Ended == b.Ended && a.Status == b.Status
	}) {
		t.Errorf("parseTimeline = %+v, want %+v", got, want)
	}
	for _, bad := range []string{"end 10 1000 0\n", "start 10 x a\n", "begin 1 2 3\n", "start 10 1000 a\nend 10 2000 x\n"} {
		if _, err := parseTimeline(bad); err == nil {
			t.Errorf("parseTimeline(%q) accepted it", bad)
		}
	}
}

// TestFingerprintIsOpenSSHs: the fingerprint the fleet computes is the one
// ssh-keygen prints, which is what a client names in its errors.
func TestFingerprintIsOpenSSHs(t *testing.T) {
	Require(t)
	dir := t.TempDir()
	if err := keygen(dir+"/key", "test"); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ssh-keygen", "-l", "-E", "sha256", "-f", dir+"/key.pub").Output()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := publicKey(dir + "/key.pub")
	if err != nil {
		t.Fatal(err)
	}
	got, err := fingerprint(pub)
	if err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(string(out)); len(f) < 2 || f[1] != got {
		t.Fatalf("fingerprint %s, ssh-keygen says %s", got, out)
	}
}

// TestChangeHostKey: a changed host key ends the connections open to the
// old host, and a client that checks known_hosts refuses the new one
// before any command runs.
func TestChangeHostKey(t *testing.T) {
	f := startFleet(t)
	old, err := f.Fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	user := f.Users[0].Name
	// A session held open by its stdin, as a pooled connection would be.
	held := ssh(f, user, "cat")
	stdin, err := held.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var heldOut bytes.Buffer
	held.Stdout = &heldOut
	if err := held.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stdin.Close() }() // the session is cut by then
	if _, err := stdin.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	waitCommands(t, f, user, 1)
	ended := make(chan error, 1)
	go func() { ended <- held.Wait() }()

	if err := f.ChangeHostKey(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		if err == nil {
			t.Fatal("the session to the old host ended well; want it cut")
		}
	case <-time.After(time.Minute):
		t.Fatal("the session to the old host is still open after the host key changed")
	}
	now, err := f.Fingerprint()
	if err != nil || now == old {
		t.Fatalf("fingerprint after the change %s (%v), before %s", now, err, old)
	}
	out, err := ssh(f, user, "echo should not run").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "REMOTE HOST IDENTIFICATION HAS CHANGED") || !strings.Contains(string(out), now) {
		t.Fatalf("ssh after the change: %v\n%s", err, out)
	}
	if got, _ := f.Commands(user); !slices.Equal(got, []string{"cat"}) {
		t.Fatalf("commands of %s = %q, want only cat", user, got)
	}
}

// waitCommands waits until the forced command recorded n commands of
// user. The log has no event to wait on, and it is a file on this machine:
// it is read every millisecond.
func waitCommands(t *testing.T, f *Fleet, user string, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := f.Commands(user)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("commands of %s = %q, want %d of them", user, got, n)
		}
		time.Sleep(time.Millisecond)
	}
}
