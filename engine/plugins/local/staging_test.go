package local

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"manent.dev/manent/deploy"
)

// logTo sends the plugin's log lines of req to a channel the test waits on.
func logTo(req *deploy.PluginRequest) <-chan string {
	lines := make(chan string, 64)
	req.Log = func(format string, args ...any) {
		select {
		case lines <- fmt.Sprintf(format, args...):
		default:
		}
	}
	return lines
}

// waitLine waits for a log line containing s from a deploy that runs until
// done; it fails the test when the deploy ends first.
func waitLine(t *testing.T, lines <-chan string, done <-chan error, s string) {
	t.Helper()
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, s) {
				return
			}
		case err := <-done:
			t.Fatalf("the deploy ended (%v) without a log line with %q", err, s)
		}
	}
}

// logged reports whether a deploy that ended logged a line containing s.
func logged(lines <-chan string, s string) bool {
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, s) {
				return true
			}
		default:
			return false
		}
	}
}

// hidden lists the hidden entries of releases/: staging directories.
func hidden(t *testing.T, target string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(target, releasesDir))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

func mustMkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "partial"), []byte("half a file"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStaleStagingRemovedBeforeUnpacking(t *testing.T) {
	target := t.TempDir()
	rels := filepath.Join(target, releasesDir)
	// What a deploy killed while unpacking leaves, of this version and of
	// another; and what is not manent's staging.
	for _, name := range []string{".1.0.0.tmp-1234567", ".0.9.0.tmp-42", ".notes", "0.8.0"} {
		mustMkdir(t, filepath.Join(rels, name))
	}
	if err := os.WriteFile(filepath.Join(rels, ".2.0.0.tmp-7"), []byte("a file, not a staging directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := request(archiveOf(t, tarFile("index.html", "v1")), target, "1.0.0", "aaa")
	lines := logTo(&req)
	if _, err := New("/").Deploy(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got, want := hidden(t, target), []string{".2.0.0.tmp-7", ".notes"}; !slices.Equal(got, want) {
		t.Errorf("hidden entries of releases/ = %q, want %q", got, want)
	}
	for _, kept := range []string{"0.8.0/partial", "1.0.0/index.html"} {
		if _, err := os.Stat(filepath.Join(rels, kept)); err != nil {
			t.Errorf("%s: %v", kept, err)
		}
	}
	if line := "removed releases/.0.9.0.tmp-42, the staging directory of an interrupted deploy"; !logged(lines, line) {
		t.Errorf("no log line %q", line)
	}
}

// TestStagingInProgressIsKept: a deploy of another environment to the same
// directory (or another worker on the host) is unpacking; the next deploy
// waits for it and leaves its staging alone.
func TestStagingInProgressIsKept(t *testing.T) {
	target := t.TempDir()
	other := request("", target, "2.0.0", "bbb")
	unlock, err := lockStaging(context.Background(), other, target)
	if err != nil {
		t.Fatal(err)
	}
	staging := filepath.Join(target, releasesDir, ".2.0.0.tmp-99")
	mustMkdir(t, staging)

	req := request(archiveOf(t, tarFile("index.html", "v1")), target, "1.0.0", "aaa")
	lines := logTo(&req)
	done := make(chan error, 1)
	go func() {
		_, err := New("/").Deploy(context.Background(), req)
		done <- err
	}()
	waitLine(t, lines, done, "waiting for another deploy unpacking into this directory")
	if _, err := os.Stat(filepath.Join(staging, "partial")); err != nil {
		t.Fatalf("the other deploy's staging, while it holds the lock: %v", err)
	}
	// The other deploy ends: its staging becomes its release.
	if err := os.Rename(staging, filepath.Join(target, releasesDir, "2.0.0")); err != nil {
		t.Fatal(err)
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"1.0.0/index.html", "2.0.0/partial"} {
		if _, err := os.Stat(filepath.Join(target, releasesDir, rel)); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
	}
}

func TestStagingWaitEndsWithTheContext(t *testing.T) {
	target := t.TempDir()
	unlock, err := lockStaging(context.Background(), request("", target, "2.0.0", "bbb"), target)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	staging := filepath.Join(target, releasesDir, ".2.0.0.tmp-99")
	mustMkdir(t, staging)
	req := request(archiveOf(t, tarFile("index.html", "v1")), target, "1.0.0", "aaa")
	lines := logTo(&req)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := New("/").Deploy(ctx, req)
		done <- err
	}()
	waitLine(t, lines, done, "waiting for another deploy")
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || deploy.IsPermanent(err) {
		t.Fatalf("deploy: %v, want the context's error, to be retried", err)
	}
	if got := hidden(t, target); !slices.Equal(got, []string{".2.0.0.tmp-99"}) {
		t.Fatalf("hidden entries of releases/ = %q, want the other deploy's staging only", got)
	}
}

// Environment of the process TestKilledDuringUnpack starts, and kills.
const (
	childTarget   = "MANENT_TEST_UNPACK_TARGET"
	childArtifact = "MANENT_TEST_UNPACK_ARTIFACT"
)

// TestKilledDuringUnpack kills a process with SIGKILL while it unpacks (its
// artifact is a pipe the test writes half of), then deploys again: the
// staging directory the dead process left is removed, and its lock did
// not outlive it.
func TestKilledDuringUnpack(t *testing.T) {
	if target := os.Getenv(childTarget); target != "" {
		unpackForever(t, target, os.Getenv(childArtifact))
		return
	}
	target := t.TempDir()
	fifo := filepath.Join(t.TempDir(), "artifact.tar")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledDuringUnpack$")
	cmd.Env = append(os.Environ(), childTarget+"="+target, childArtifact+"="+fifo)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = cmd.Process.Kill()
			t.Logf("child stopped: %v", <-exited)
		}
	})
	// The open returns when the child opens the artifact to unpack it:
	// after it took the lock and made its staging directory.
	opened := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
		}
		opened <- w
	}()
	var w *os.File
	select {
	case w = <-opened:
	case err := <-exited:
		killed = true
		t.Fatalf("the child ended before it unpacked: %v\n%s", err, out)
	}
	if w == nil {
		t.FailNow()
	}
	defer func() { _ = w.Close() }()
	tw := tar.NewWriter(w)
	if err := tw.WriteHeader(&tar.Header{Name: "big", Mode: 0o644, Size: 1 << 30, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	// More than a pipe holds: when the write returns the child is writing
	// the file into its staging directory.
	if _, err := tw.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed = true
	if err := <-exited; err == nil {
		t.Fatalf("the child ended by itself:\n%s", out)
	}
	left := hidden(t, target)
	if len(left) != 1 || !stagingName.MatchString(left[0]) {
		t.Fatalf("after the kill releases/ hides %q, want the dead deploy's staging directory\n%s", left, out)
	}

	req := request(archiveOf(t, tarFile("index.html", "v1")), target, "1.0.0", "aaa")
	lines := logTo(&req)
	if _, err := New("/").Deploy(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := hidden(t, target); len(got) != 0 {
		t.Errorf("after the next deploy releases/ hides %q, want nothing", got)
	}
	if b, err := os.ReadFile(filepath.Join(target, releasesDir, "1.0.0", "index.html")); err != nil || string(b) != "v1" {
		t.Errorf("release 1.0.0: %q, %v", b, err)
	}
	if line := "removed releases/" + left[0]; !logged(lines, line) {
		t.Errorf("no log line %q", line)
	}
}

// unpackForever is the child of TestKilledDuringUnpack: a deploy's staging
// of an artifact that never ends, until the test kills it.
func unpackForever(t *testing.T, target, artifact string) {
	req := request(artifact, target, "1.0.0", "aaa")
	_, err := New("/").deployTarget(context.Background(), req, req.Targets[0], target)
	t.Fatalf("the unpack of a pipe ended: %v", err)
}
