package ssh

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"manent.dev/manent/deploy"
)

// pathWithout is a PATH of links to every command of the test's PATH but
// the one named: a host without it.
func pathWithout(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			link := filepath.Join(dir, e.Name())
			if e.Name() == name || e.IsDir() {
				continue
			}
			if _, err := os.Lstat(link); err == nil {
				continue // the first of PATH wins, as for the shell
			}
			if err := os.Symlink(filepath.Join(d, e.Name()), link); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// On a host without flock(1) the scripts lock with the directory
// .manent/lock.d: a step waits while another command holds it, says so
// in the log, and leaves no lock behind.
func TestLockWithoutFlock(t *testing.T) {
	f := newFleet(t, 1)
	f.servers[0].SetPath(pathWithout(t, "flock"))
	tg := f.targets[0]
	p := f.plugin()
	ctx := t.Context()
	// Another command holds the lock.
	lockDir := filepath.Join(f.dir(tg), ".manent", "lock.d")
	if err := os.MkdirAll(lockDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lockDir, "holder"), []byte("process 1 of another deploy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waiting := make(chan string, 1)
	var once sync.Once
	req := f.request("d1", deploy.StepDeploy, "1.0.0", deploy.KindRun)
	req.Log = func(format string, args ...any) {
		if line := fmt.Sprintf(format, args...); strings.Contains(line, "waiting for the lock of") {
			once.Do(func() { waiting <- line })
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.Deploy(ctx, req)
		done <- err
	}()
	select {
	case line := <-waiting:
		if !strings.Contains(line, "process 1 of another deploy") {
			t.Errorf("the log says %q, want who holds the lock", line)
		}
	case err := <-done:
		t.Fatalf("the deploy did not wait for the lock: %v", err)
	}
	if rs, _ := f.releases(tg); len(rs) != 0 {
		t.Errorf("releases %q unpacked while another command held the lock", rs)
	}
	if err := os.RemoveAll(lockDir); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("deploy once the lock was free: %v", err)
	}
	if _, err := p.Activate(ctx, f.request("d1", deploy.StepActivation, "1.0.0", deploy.KindRun)); err != nil {
		t.Fatal(err)
	}
	f.wantCurrent("1.0.0")
	f.wantJournals("deploy 1.0.0", "activate 1.0.0")
	if _, err := os.Stat(lockDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock is left after the steps: %v", err)
	}
}
