package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestReproJournalLineLostOnCrash: the local plugin makes its change, then
// appends the journal line. A worker killed between the two leaves a change
// without its line, and the step run again in the next process finds the
// change done and journals nothing. The journal of target a is made a FIFO
// so that the plugin blocks right between the two.
func TestReproJournalLineLostOnCrash(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy", "activation"}, maxRecovery: 3})
	r.artifact("1.0.0")
	r.env("staging", "plugin: local\ntargets:\n  - path: targets/a\n")
	a := r.target("targets/a")
	if err := os.MkdirAll(filepath.Join(a, ".manent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(a, ".manent/journal"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.srv.start()
	id := r.submit(r.descriptor("hello-1", "staging", "1.0.0", ""))
	// The release is renamed in place; the plugin now waits to open the journal.
	for {
		if _, err := os.Stat(filepath.Join(a, "releases/1.0.0/.manent-release")); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // let it reach the open of the FIFO
	r.srv.kill()
	if err := os.Remove(filepath.Join(a, ".manent/journal")); err != nil {
		t.Fatal(err)
	}
	r.srv.start()
	st := r.followToEnd(id)
	got := journalLines(t, a)
	t.Logf("state %s; journal of a: %q", st.State, got)
	t.Logf("log:\n%s", r.logText(id))
	if want := []string{"deploy 1.0.0", "activate 1.0.0"}; !slices.Equal(got, want) {
		t.Fatalf("journal = %q, want %q: the deploy the first process performed has no line", got, want)
	}
}
