package sshfleet

import (
	"bytes"
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
	f, err := Start(Config{Dir: dir, Users: testUsers})
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
