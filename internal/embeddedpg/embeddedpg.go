package embeddedpg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options says where and how to run PostgreSQL.
type Options struct {
	// DataDir is where the cluster is kept and reused across starts. As
	// root, the cluster lives in /var/tmp/manent-pg-<hash of DataDir>
	// instead (DataDir's parents may not be traversable by the PostgreSQL
	// user) and DataDir only holds a "cluster" symlink to it.
	DataDir string
	// Port on 127.0.0.1; 0 picks a free one.
	Port int
	// BinDir holds initdb and postgres; empty means the npm package's
	// native/bin in the first node_modules found upward from the working
	// directory.
	BinDir string
	// Logger receives where the cluster is and what happens to it; nil
	// discards. The password is never logged.
	Logger *slog.Logger
	// Ephemeral is for tests: durability is traded for speed (fsync,
	// synchronous_commit and full_page_writes off) and Stop removes the cluster.
	Ephemeral bool
	// Detach leaves PostgreSQL running when this process ends (pgctl start);
	// otherwise the kernel stops it when this process dies, even by SIGKILL.
	Detach bool
	// StartTimeout bounds initdb and start-up together; default 2 minutes.
	StartTimeout time.Duration
}

// Instance is a running PostgreSQL.
type Instance struct {
	opts Options
	cl   cluster
	bin  binaries // what Restart launches again
	log  *slog.Logger
	// port and password never change after Start: clients keep the URL
	// across Crash and Restart.
	port     int
	password string
	// owned is false when Start found the cluster already running: Stop
	// then leaves it to whoever started it.
	owned bool

	// mu serialises Crash, Restart and Stop, which replace or read the
	// postmaster below.
	mu  sync.Mutex
	pid int
	// exited is closed when the postgres child ends (nil when detached).
	exited chan struct{}
	// down is set once the postmaster is known to have exited (Crash, a
	// Restart that failed): its PID may be another process's by then, so
	// nothing must signal it.
	down     bool
	stopped  bool
	stopOnce sync.Once
	stopErr  error
}

// Start initialises the cluster of opts.DataDir if needed (initdb once),
// clears what a killed server left behind, and starts PostgreSQL on
// 127.0.0.1 with its Unix socket in the cluster directory. If the cluster is
// already running, Start returns an Instance attached to it.
func Start(ctx context.Context, opts Options) (*Instance, error) {
	if opts.DataDir == "" {
		return nil, errors.New("embeddedpg: no data directory")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()

	acct, err := pgAccount()
	if err != nil {
		return nil, err
	}
	bin, err := resolveBinaries(ctx, opts.BinDir, acct, opts.Logger)
	if err != nil {
		return nil, err
	}
	dir, err := clusterDir(opts.DataDir, acct)
	if err != nil {
		return nil, err
	}
	cl := cluster{dir: dir, acct: acct}
	if err := cl.prepare(opts.DataDir); err != nil {
		return nil, err
	}
	unlock, err := cl.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()

	if !cl.initialized() {
		opts.Logger.Info("initialising embedded PostgreSQL cluster", "cluster", dir, "user", acct.String(), "version", bin.version)
		if err := cl.initdb(ctx, bin, opts.Ephemeral); err != nil {
			return nil, err
		}
	}
	if err := cl.checkVersion(bin); err != nil {
		return nil, err
	}
	pw, err := cl.password()
	if err != nil {
		return nil, err
	}
	inst := &Instance{opts: opts, cl: cl, bin: bin, log: opts.Logger, password: pw}
	if err := inst.attachOrLaunch(ctx, bin); err != nil {
		return nil, err
	}
	return inst, nil
}

// attachOrLaunch attaches to the server running the cluster, or starts one,
// on a new free port if the one it picked is taken meanwhile.
func (i *Instance) attachOrLaunch(ctx context.Context, bin binaries) error {
	pm, err := i.cl.running()
	if err != nil {
		return err
	}
	if pm != nil {
		i.port, i.pid = pm.port, pm.pid
		if err := i.waitReady(ctx, nil, 0); err != nil {
			return err
		}
		i.log.Info("embedded PostgreSQL already running: attached", "cluster", i.cl.dir, "port", pm.port, "pid", pm.pid)
		return nil
	}
	if err := i.cl.waitOrphans(ctx, i.log); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		port := i.opts.Port
		if port == 0 {
			if port, err = freePort(); err != nil {
				return err
			}
		}
		i.port = port
		err = i.launch(ctx, bin)
		if err == nil {
			break
		}
		// Another process may take the free port between our probe and
		// postgres's bind.
		if i.opts.Port != 0 || attempt == 3 || !errors.Is(err, errPortInUse) {
			return err
		}
	}
	i.owned = true
	i.log.Info("embedded PostgreSQL started", "cluster", i.cl.dir, "port", i.port, "pid", i.pid,
		"user", i.cl.acct.String(), "version", bin.version, "ephemeral", i.opts.Ephemeral, "log", i.cl.logPath())
	return nil
}

var errPortInUse = errors.New("port in use")

// launch starts postgres on i.port and waits until it accepts connections.
// It leaves i.port alone, so that URL may be called while Restart runs.
func (i *Instance) launch(ctx context.Context, bin binaries) error {
	logf, err := os.OpenFile(i.cl.logPath(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open postgres log: %w", err)
	}
	defer func() { _ = logf.Close() }() // the child keeps its own descriptor
	logStart, _ := logf.Seek(0, io.SeekEnd)

	args := []string{
		"-D", i.cl.pgdata(), "-p", strconv.Itoa(i.port), "-k", i.cl.runDir(),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "max_connections=300",
		"-c", "timezone=UTC", "-c", "log_timezone=UTC",
	}
	if i.opts.Ephemeral {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	cmd := exec.Command(filepath.Join(bin.dir, "postgres"), args...)
	cmd.Dir = i.cl.dir
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = i.cl.acct.sysProcAttr()
	if i.opts.Detach {
		cmd.SysProcAttr.Setsid = true
	} else {
		// Its own process group keeps a terminal's Ctrl-C for us (we stop
		// it in order); the death signal stops it if we die without Stop.
		cmd.SysProcAttr.Setpgid = true
		cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	}

	started := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		// The kernel sends Pdeathsig when the thread that forked the child
		// exits, not the process: keep this thread, locked, until the
		// child ends (golang/go#27505).
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		close(exited)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	i.pid = cmd.Process.Pid
	if err := i.waitReady(ctx, exited, logStart); err != nil {
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		<-exited
		return err
	}
	if !i.opts.Detach {
		i.exited = exited
	}
	return nil
}

// waitReady waits until postmaster.pid says the server accepts connections.
// PostgreSQL offers no notification of that; pg_ctl polls the same file.
func (i *Instance) waitReady(ctx context.Context, exited <-chan struct{}, logStart int64) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		pm, err := i.cl.readPidFile()
		if err != nil {
			return err
		}
		if pm != nil && pm.pid == i.pid && pm.status == "ready" {
			return nil
		}
		select {
		case <-exited:
			out := i.logSince(logStart)
			if strings.Contains(out, "could not bind") || strings.Contains(out, "already in use") {
				return fmt.Errorf("postgres on port %d: %w: %s", i.port, errPortInUse, tail(out, 1000))
			}
			return fmt.Errorf("postgres exited during start-up (log %s): %s", i.cl.logPath(), tail(out, 2000))
		case <-ctx.Done():
			return fmt.Errorf("wait for postgres to accept connections (log %s): %w", i.cl.logPath(), ctx.Err())
		case <-tick.C:
		}
	}
}

func (i *Instance) logSince(offset int64) string {
	f, err := os.Open(i.cl.logPath())
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	return string(b)
}

// URL returns the URL of database db ("" means postgres) as the superuser.
// It holds the password: never log it.
func (i *Instance) URL(db string) string {
	if db == "" {
		db = "postgres"
	}
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(superuser, i.password),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(i.port)),
		Path:     "/" + db,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Port is the TCP port on 127.0.0.1.
func (i *Instance) Port() int { return i.port }

// Dir is the cluster directory (PGDATA is its pgdata/, the socket is in run/).
func (i *Instance) Dir() string { return i.cl.dir }

// Stop shuts PostgreSQL down (fast: sessions are ended, data is kept) if this
// Instance started it, and removes the cluster when Options.Ephemeral. An
// Instance attached to a server started by another process leaves it running.
// After Crash without Restart there is nothing to stop, and the cluster is
// still removed when Ephemeral.
func (i *Instance) Stop() error {
	i.stopOnce.Do(func() {
		i.mu.Lock()
		defer i.mu.Unlock()
		i.stopped = true
		if !i.owned {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		i.stopErr = i.shutdown(ctx)
	})
	return i.stopErr
}

// shutdown runs with i.mu held.
func (i *Instance) shutdown(ctx context.Context) error {
	if !i.down {
		if err := stopProcess(ctx, i.pid, i.gone); err != nil {
			return err
		}
		i.log.Info("embedded PostgreSQL stopped", "cluster", i.cl.dir)
	}
	if i.opts.Ephemeral {
		return i.cl.remove(i.opts.DataDir)
	}
	return nil
}

// gone reports whether the postmaster this Instance launched has exited. A
// zombie counts (alive says no): a killed child is one until Wait reaps it
// and exited is closed, and Restart need not wait for that.
func (i *Instance) gone() bool {
	if i.exited != nil {
		select {
		case <-i.exited:
			return true
		default:
		}
	}
	return !alive(i.pid)
}

// Crash shuts PostgreSQL down the way `pg_ctl stop -m immediate` does, for
// tests of a database outage: the postmaster gets SIGQUIT, every session is
// cut without a checkpoint, and Crash returns once the postmaster has exited,
// so that connecting is refused. Nothing is removed, even when Ephemeral:
// Restart recovers the same cluster. As with a real crash, an Ephemeral
// server (synchronous_commit off) loses the transactions committed in its
// last few hundred milliseconds, which the WAL writer had not written yet;
// a test whose commits must survive sets synchronous_commit on (in the
// session, or with ALTER DATABASE). A server already down is left as it is.
// Only the Instance that started the server may crash it.
func (i *Instance) Crash(ctx context.Context) error {
	if !i.owned {
		return fmt.Errorf("crash the PostgreSQL of %s: this Instance is attached to a server another process started", i.cl.dir)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.stopped {
		return fmt.Errorf("crash the PostgreSQL of %s: the Instance is stopped", i.cl.dir)
	}
	if i.down || i.gone() {
		i.down = true
		return nil
	}
	if err := syscall.Kill(i.pid, syscall.SIGQUIT); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("crash postgres (pid %d): %w", i.pid, err)
	}
	// The postmaster exits after its backends (it kills those that linger),
	// so once it is gone nothing holds the port or the shared memory.
	if err := i.waitGone(ctx); err != nil {
		return fmt.Errorf("crash postgres (pid %d): %w", i.pid, err)
	}
	i.down = true
	i.log.Info("embedded PostgreSQL crashed (immediate shutdown)", "cluster", i.cl.dir, "pid", i.pid)
	return nil
}

// waitGone waits until the postmaster has exited: on the exited channel of
// our child, or by polling when it is detached, as stopProcess does.
func (i *Instance) waitGone(ctx context.Context) error {
	if i.exited != nil {
		select {
		case <-i.exited:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("wait for the postmaster to exit: %w", ctx.Err())
		}
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !i.gone() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the postmaster to exit: %w", ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// Restart starts PostgreSQL again after Crash, or after it died, on the same
// cluster and port, and returns once crash recovery is done and it accepts
// connections: URL is unchanged, so clients reconnect where they were. If
// the port was taken meanwhile, Restart fails rather than move to another.
// Options.StartTimeout bounds it. Only the Instance that started the server
// may restart it.
func (i *Instance) Restart(ctx context.Context) error {
	if !i.owned {
		return fmt.Errorf("restart the PostgreSQL of %s: this Instance is attached to a server another process started", i.cl.dir)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.stopped {
		return fmt.Errorf("restart the PostgreSQL of %s: the Instance is stopped", i.cl.dir)
	}
	if !i.down && !i.gone() {
		return fmt.Errorf("restart the PostgreSQL of %s: it is still running (pid %d): Crash it first", i.cl.dir, i.pid)
	}
	i.down = true
	ctx, cancel := context.WithTimeout(ctx, i.opts.StartTimeout)
	defer cancel()
	unlock, err := i.cl.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	// While it was down, another process may have started the cluster; a
	// postmaster killed rather than crashed leaves its postmaster.pid and
	// backends behind, which postgres would refuse to start with.
	pm, err := i.cl.running()
	if err != nil {
		return err
	}
	if pm != nil {
		return fmt.Errorf("restart the PostgreSQL of %s: another server (pid %d, port %d) runs the cluster now", i.cl.dir, pm.pid, pm.port)
	}
	if err := i.cl.waitOrphans(ctx, i.log); err != nil {
		return err
	}
	if err := i.launch(ctx, i.bin); err != nil {
		if errors.Is(err, errPortInUse) {
			// Unlike Start, no other port is tried: clients hold the URL.
			return fmt.Errorf("restart postgres on the port of its URL: %w", err)
		}
		return fmt.Errorf("restart postgres: %w", err)
	}
	i.down = false
	i.log.Info("embedded PostgreSQL restarted", "cluster", i.cl.dir, "port", i.port, "pid", i.pid)
	return nil
}

// Shutdown stops the PostgreSQL serving the cluster of opts.DataDir, if any,
// whoever started it (pgctl stop), and removes the cluster when
// opts.Ephemeral. Only DataDir, Ephemeral and Logger are used.
func Shutdown(ctx context.Context, opts Options) error {
	if opts.DataDir == "" {
		return errors.New("embeddedpg: no data directory")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	acct, err := pgAccount()
	if err != nil {
		return err
	}
	dir, err := clusterDir(opts.DataDir, acct)
	if err != nil {
		return err
	}
	cl := cluster{dir: dir, acct: acct}
	if _, err := os.Stat(dir); err != nil {
		// Nothing was ever started there, or the cluster is gone: its
		// pointer in DataDir may remain.
		if opts.Ephemeral {
			return cl.remove(opts.DataDir)
		}
		return nil
	}
	unlock, err := cl.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	pm, err := cl.running()
	if err != nil {
		return err
	}
	if pm != nil {
		if err := stopProcess(ctx, pm.pid, func() bool { return !alive(pm.pid) }); err != nil {
			return err
		}
		log.Info("embedded PostgreSQL stopped", "cluster", dir, "pid", pm.pid)
	}
	if opts.Ephemeral {
		if err := cl.remove(opts.DataDir); err != nil {
			return err
		}
		log.Info("embedded PostgreSQL cluster removed", "cluster", dir)
	}
	return nil
}

// Remove stops the PostgreSQL serving the cluster of opts.DataDir, if any,
// and removes the cluster wherever it lives (as root, in
// /var/tmp/manent-pg-<hash>), durable or not: what `make clean` does for a
// checkout, whose deletion would otherwise leave the cluster behind. Only
// DataDir and Logger are used.
func Remove(ctx context.Context, opts Options) error {
	opts.Ephemeral = true
	return Shutdown(ctx, opts)
}

// RemoveBinaries removes the copy of the binaries of binDir (default: the
// npm package found upward from the working directory, as Start finds it)
// that Start makes as root (/var/tmp/manent-pg-bin-<hash>), and returns
// its path; "" when there is none. Clusters running from it keep running.
func RemoveBinaries(binDir string) (string, error) {
	if binDir == "" {
		found, err := findBinDir()
		if err != nil {
			return "", nil // no package, so no copy of it either
		}
		binDir = found
	}
	abs, err := filepath.Abs(binDir)
	if err != nil {
		return "", fmt.Errorf("postgres binaries: %w", err)
	}
	dest := binariesCopy(filepath.Dir(abs))
	if _, err := os.Lstat(dest); err != nil {
		return "", nil
	}
	if err := os.RemoveAll(dest); err != nil {
		return "", fmt.Errorf("remove the copy of the postgres binaries: %w", err)
	}
	return dest, nil
}

// stopProcess asks postgres for a fast shutdown, then an immediate one, then
// kills it, each after a grace period, until gone reports true.
func stopProcess(ctx context.Context, pid int, gone func() bool) error {
	steps := []struct {
		sig   syscall.Signal
		grace time.Duration
	}{
		{syscall.SIGINT, 60 * time.Second},
		{syscall.SIGQUIT, 10 * time.Second},
		{syscall.SIGKILL, 10 * time.Second},
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for _, s := range steps {
		if gone() {
			return nil
		}
		if err := syscall.Kill(pid, s.sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("signal postgres (pid %d): %w", pid, err)
		}
		deadline := time.NewTimer(s.grace)
	wait:
		for !gone() {
			select {
			case <-ctx.Done():
				deadline.Stop()
				return fmt.Errorf("stop postgres (pid %d): %w", pid, ctx.Err())
			case <-deadline.C:
				break wait
			case <-tick.C:
			}
		}
		deadline.Stop()
	}
	if !gone() {
		return fmt.Errorf("postgres (pid %d) survived SIGKILL", pid)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port: %w", err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
