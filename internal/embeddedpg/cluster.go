package embeddedpg

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The layout of a cluster directory.
const (
	pgdataName   = "pgdata"   // PGDATA
	runName      = "run"      // the Unix socket
	passwordName = "password" // the superuser's password, 0600
	logName      = "postgres.log"
	lockName     = "lock" // flock'ed while a process starts or stops the cluster
	// pointerName is the symlink left in DataDir when the cluster lives
	// elsewhere, so that whoever looks there finds it.
	pointerName = "cluster"
	superuser   = "postgres"
)

// cluster is one PostgreSQL cluster directory.
type cluster struct {
	dir  string
	acct *account
}

func (c cluster) pgdata() string   { return filepath.Join(c.dir, pgdataName) }
func (c cluster) runDir() string   { return filepath.Join(c.dir, runName) }
func (c cluster) logPath() string  { return filepath.Join(c.dir, logName) }
func (c cluster) pwPath() string   { return filepath.Join(c.dir, passwordName) }
func (c cluster) lockPath() string { return filepath.Join(c.dir, lockName) }

// prepare creates the cluster directory, owned by the PostgreSQL user, and
// when it is not dataDir, the pointer to it in dataDir.
func (c cluster) prepare(dataDir string) error {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return fmt.Errorf("create cluster directory: %w", err)
	}
	st, err := os.Lstat(c.dir)
	if err != nil {
		return fmt.Errorf("cluster directory: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("cluster directory %s is not a directory", c.dir)
	}
	for _, p := range []string{c.dir, c.runDir()} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			return fmt.Errorf("create cluster directory: %w", err)
		}
		if err := c.acct.chown(p); err != nil {
			return err
		}
		if err := os.Chmod(p, 0o700); err != nil {
			return fmt.Errorf("cluster directory: %w", err)
		}
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	if abs == c.dir {
		return nil
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	pointer := filepath.Join(abs, pointerName)
	if cur, err := os.Readlink(pointer); err == nil && cur == c.dir {
		return nil
	}
	_ = os.Remove(pointer)
	if err := os.Symlink(c.dir, pointer); err != nil {
		// A concurrent start may have made the same link (this runs before
		// the cluster lock, which lives in the cluster directory).
		if cur, rerr := os.Readlink(pointer); rerr == nil && cur == c.dir {
			return nil
		}
		return fmt.Errorf("point %s to the cluster: %w", pointer, err)
	}
	return nil
}

// lock takes the cluster's lock, so that two processes never initialise,
// start or stop one cluster at once. It polls so ctx can end the wait.
func (c cluster) lock(ctx context.Context) (unlock func(), err error) {
	f, err := os.OpenFile(c.lockPath(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cluster lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			_ = f.Close()
			return nil, fmt.Errorf("cluster lock: %w", err)
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("wait for the cluster lock of %s: %w", c.dir, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// initialized reports whether initdb completed in this cluster.
func (c cluster) initialized() bool {
	return isFile(filepath.Join(c.pgdata(), "PG_VERSION"))
}

// initdb creates the cluster once: into a temporary directory renamed at the
// end, so that an initdb killed half-way is redone rather than half-used.
func (c cluster) initdb(ctx context.Context, bin binaries, ephemeral bool) error {
	tmp := c.pgdata() + ".init"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("remove an interrupted initdb: %w", err)
	}
	pw, err := newPassword()
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.pwPath(), []byte(pw+"\n"), 0o600); err != nil {
		return fmt.Errorf("write password file: %w", err)
	}
	if err := c.acct.chown(c.pwPath()); err != nil {
		return err
	}
	args := []string{
		"-D", tmp, "-U", superuser, "--pwfile=" + c.pwPath(),
		// Over TCP a password is needed; the socket, in a directory only the
		// PostgreSQL user (and root) can enter, lets psql in without one.
		"--auth-host=scram-sha-256", "--auth-local=trust",
		"-E", "UTF8", "--no-locale", "--no-instructions",
	}
	if ephemeral {
		args = append(args, "--no-sync")
	}
	cmd := exec.CommandContext(ctx, filepath.Join(bin.dir, "initdb"), args...)
	cmd.Dir = c.dir
	cmd.Env = childEnv()
	cmd.SysProcAttr = c.acct.sysProcAttr()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb in %s as %s: %w: %s", c.dir, c.acct.String(), err, tail(string(out), 2000))
	}
	if err := os.Rename(tmp, c.pgdata()); err != nil {
		return fmt.Errorf("initdb: %w", err)
	}
	return nil
}

func (c cluster) password() (string, error) {
	b, err := os.ReadFile(c.pwPath())
	if err != nil {
		return "", fmt.Errorf("cluster %s has no readable password file (remove the cluster to recreate it): %w", c.dir, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// checkVersion refuses a cluster made by another major version, which
// postgres would refuse with a less helpful message.
func (c cluster) checkVersion(bin binaries) error {
	b, err := os.ReadFile(filepath.Join(c.pgdata(), "PG_VERSION"))
	if err != nil {
		return fmt.Errorf("cluster version: %w", err)
	}
	if have := strings.TrimSpace(string(b)); have != bin.major() {
		return fmt.Errorf("the cluster in %s was made by PostgreSQL %s but the binaries are %s: remove the cluster to recreate it", c.dir, have, bin.version)
	}
	return nil
}

// postmaster is what postmaster.pid says about a running server.
type postmaster struct {
	pid    int
	port   int
	status string // "starting", "ready", "stopping"
}

// readPidFile returns nil when there is no postmaster.pid.
func (c cluster) readPidFile() (*postmaster, error) {
	b, err := os.ReadFile(filepath.Join(c.pgdata(), "postmaster.pid"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read postmaster.pid: %w", err)
	}
	lines := strings.Split(string(b), "\n")
	pm := &postmaster{}
	pm.pid, _ = strconv.Atoi(strings.TrimSpace(lines[0]))
	if len(lines) > 3 {
		pm.port, _ = strconv.Atoi(strings.TrimSpace(lines[3]))
	}
	if len(lines) > 7 {
		pm.status = strings.TrimSpace(lines[7])
	}
	return pm, nil
}

// running returns the postmaster serving this cluster, nil when none does.
// A postmaster.pid left by a killed server is removed: its PID may now be
// another process's, and postgres would then refuse to start.
func (c cluster) running() (*postmaster, error) {
	pm, err := c.readPidFile()
	if err != nil || pm == nil {
		return nil, err
	}
	if pm.pid > 0 && c.serves(pm.pid) {
		return pm, nil
	}
	if err := os.Remove(filepath.Join(c.pgdata(), "postmaster.pid")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("remove stale postmaster.pid: %w", err)
	}
	socks, _ := filepath.Glob(filepath.Join(c.runDir(), ".s.PGSQL.*"))
	for _, s := range socks {
		_ = os.Remove(s)
	}
	return nil, nil
}

// serves reports whether pid is a live postgres whose working directory is
// this cluster's PGDATA (postgres chdirs there).
func (c cluster) serves(pid int) bool {
	if !alive(pid) {
		return false
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
		return false
	}
	cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	if err != nil {
		// A postgres we may not inspect: assume it is ours rather than
		// delete the lock file of a live server.
		return true
	}
	want, err := filepath.EvalSymlinks(c.pgdata())
	if err != nil {
		want = c.pgdata()
	}
	return cwd == want
}

// orphans returns the live processes still working in this cluster's PGDATA:
// the backends of a postmaster that was killed, which keep its shared memory
// attached until they notice, and until then postgres refuses to start.
func (c cluster) orphans() []int {
	want, err := filepath.EvalSymlinks(c.pgdata())
	if err != nil {
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err == nil && cwd == want && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitOrphans gives the orphans of a killed postmaster time to exit on their
// own (they do once they notice), then kills them: it is what PostgreSQL's
// own hint says to do.
func (c cluster) waitOrphans(ctx context.Context, log *slog.Logger) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		pids := c.orphans()
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			log.Warn("killing the processes a killed PostgreSQL left behind", "cluster", c.dir, "pids", pids)
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			deadline = time.Now().Add(time.Minute)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the processes of a killed PostgreSQL (%v) to end: %w", pids, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces, the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	return s[i+2] != 'Z'
}

// remove deletes the cluster and the pointer to it.
func (c cluster) remove(dataDir string) error {
	if err := os.RemoveAll(c.dir); err != nil {
		return fmt.Errorf("remove cluster: %w", err)
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil || abs == c.dir {
		return nil
	}
	_ = os.Remove(filepath.Join(abs, pointerName))
	_ = os.Remove(abs) // only when empty: DataDir may hold other things
	return nil
}

func newPassword() (string, error) {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate password: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
