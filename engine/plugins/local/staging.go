package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"manent.dev/manent/deploy"
)

// A release is unpacked into releases/.<version>.tmp-<random> and renamed
// into place. The process that stages holds the target's staging lock from
// before it creates that directory until after it is renamed or removed, so
// a staging directory found under the lock belongs to no live deploy: its
// process died (a SIGKILL, a power cut) before it could remove it.
const (
	stagingInfix = ".tmp-"
	// stagingLock is locked with flock(2), which the kernel releases when
	// its process dies however it dies: a dead deploy never holds it.
	stagingLock = ".manent/staging.lock"
	// lockPoll is how often a deploy looks again at a lock another process
	// holds; flock has no wait that a context can end.
	lockPoll = 50 * time.Millisecond
)

// stagingName matches the names os.MkdirTemp gives staging directories, and
// nothing a release or an operator is likely to name: a version never
// starts with a dot.
var stagingName = regexp.MustCompile(`^\..+\.tmp-[0-9]+$`)

// lockStaging takes the staging lock of the target directory dir, waiting
// while another process (a deploy of another environment to a shared
// directory, another worker on the same host) holds it, until ctx ends.
func lockStaging(ctx context.Context, req deploy.PluginRequest, dir string) (unlock func(), err error) {
	path := filepath.Join(dir, stagingLock)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create staging lock directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open staging lock: %w", err)
	}
	// Closing the file releases the lock; a lock file has nothing to lose.
	unlock = func() { _ = f.Close() }
	waiting := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return unlock, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			unlock()
			return nil, fmt.Errorf("take staging lock: %w", err)
		}
		if !waiting {
			waiting = true
			logf(req, "%s: waiting for another deploy unpacking into this directory", dir)
		}
		select {
		case <-ctx.Done():
			unlock()
			return nil, fmt.Errorf("wait for the staging lock of %s: %w", dir, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}

// removeStaleStaging removes the staging directories of releases/ in dir,
// left by deploys that died while unpacking. Call it holding the staging
// lock: then none of them is in use. One it cannot remove is logged, not
// an error: it takes room, but the deploy can still succeed.
func removeStaleStaging(req deploy.PluginRequest, dir string) error {
	releases := filepath.Join(dir, releasesDir)
	entries, err := os.ReadDir(releases)
	if err != nil {
		return fmt.Errorf("read releases directory: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() || !stagingName.MatchString(e.Name()) {
			continue
		}
		name := filepath.Join(releasesDir, e.Name())
		if err := os.RemoveAll(filepath.Join(releases, e.Name())); err != nil {
			logf(req, "%s: could not remove %s, the staging directory of an interrupted deploy: %v", dir, name, err)
			continue
		}
		logf(req, "%s: removed %s, the staging directory of an interrupted deploy", dir, name)
	}
	return nil
}
