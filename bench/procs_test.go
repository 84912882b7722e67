package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"manent.dev/manent/internal/pgtest"
)

// The benchmarks of several processes run the real manent-server, built
// once per benchmark binary into a directory removed when it ends.
var serverBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// manentServer builds cmd/manent-server (the go build cache makes it a
// link when the packages are already built for the benchmarks).
func manentServer(b *testing.B) string {
	b.Helper()
	serverBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "manent-bench-bin-")
		if err != nil {
			serverBinary.err = err
			return
		}
		serverBinary.dir = dir
		path := filepath.Join(dir, "manent-server")
		cmd := exec.Command("go", "build", "-o", path, "./cmd/manent-server")
		cmd.Dir = ".." // the module's root: go test runs in bench/
		if out, err := cmd.CombinedOutput(); err != nil {
			serverBinary.err = fmt.Errorf("go build ./cmd/manent-server: %w\n%s", err, out)
			return
		}
		serverBinary.path = path
	})
	if serverBinary.err != nil {
		b.Fatal(serverBinary.err)
	}
	return serverBinary.path
}

func removeServerBinary() {
	if serverBinary.dir != "" {
		_ = os.RemoveAll(serverBinary.dir)
	}
}

// benchToken is the bearer token of the benchmarks' identity token:bench;
// benchTokenSHA256 its hash, as manent.yml stores it.
const (
	benchToken       = "bench-token"
	benchTokenSHA256 = "7137e16f75a1d75b6fd65930672814806cdc1a0d6e0aa38611afc996a402258b"
)

// cluster is manent-server processes on one database of the benchmark's
// PostgreSQL, each with its manent.yml in one directory (the environment
// configurations and the artifact are shared, as on machines that mount the
// same configuration).
type cluster struct {
	b     *testing.B
	bin   string
	dir   string
	dbURL string
	// common is the part of manent.yml every process shares.
	common string
	procs  []*process
}

// newCluster writes the environments demo/app/envNN (the local plugin,
// one target directory each) and the artifact, and takes a fresh database.
func newCluster(b *testing.B, environments int, common string) *cluster {
	b.Helper()
	c := &cluster{b: b, bin: manentServer(b), dir: b.TempDir(), dbURL: pgtest.URL(b), common: common}
	for i := range environments {
		writeFile(b, filepath.Join(c.dir, "envconfig/demo/app", envName(i)+".yml"),
			fmt.Sprintf("plugin: local\ntargets: [{path: targets/%s}]\n", envName(i)))
	}
	writeFile(b, filepath.Join(c.dir, "artifacts/app-1.tar.gz"), artifact(b))
	b.Cleanup(c.stopAll)
	return c
}

// config writes the manent.yml of one executor, with extra after the
// common part, and returns its path.
func (c *cluster) config(executorID, extra string) string {
	text := fmt.Sprintf(`server: {default_tenant: demo, executor_id: %s, work_dir: %s}
auth:
  tokens: [{name: bench, sha256: %s}]
rbac:
  policy: |
    p, role:deployer, demo, *, deployment.submit
    p, role:deployer, demo, *, deployment.read
    g, token:bench, role:deployer, demo
artifacts: {sources: ["file:"], file_root: artifacts}
%s%s`, executorID, filepath.Join(c.dir, "work", executorID), benchTokenSHA256, c.common, extra)
	path := filepath.Join(c.dir, executorID+".yml")
	writeFile(c.b, path, text)
	return path
}

// process is one manent-server serve.
type process struct {
	executorID string
	role       string
	config     string
	port       int
	cmd        *exec.Cmd
	log        *os.File
	exited     chan struct{}
}

func (p *process) url() string { return fmt.Sprintf("http://127.0.0.1:%d", p.port) }
func (p *process) pid() int    { return p.cmd.Process.Pid }

// start runs manent-server serve with a role and waits until it answers
// /readyz: for a worker, once its engine has launched.
func (c *cluster) start(executorID, role, extra string) *process {
	c.b.Helper()
	p := &process{executorID: executorID, role: role, config: c.config(executorID, extra), port: freePort(c.b)}
	log, err := os.Create(filepath.Join(c.dir, executorID+".log"))
	if err != nil {
		c.b.Fatal(err)
	}
	p.log = log
	p.cmd = exec.Command(c.bin, "serve", "-c", p.config, "--role", role, "--listen", fmt.Sprintf("127.0.0.1:%d", p.port))
	p.cmd.Dir = c.dir
	p.cmd.Env = append(os.Environ(), "DATABASE_URL="+c.dbURL)
	p.cmd.Stdout, p.cmd.Stderr = log, log
	// Never outlive a benchmark binary that dies.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		c.b.Fatal(err)
	}
	p.exited = make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	c.procs = append(c.procs, p)
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case <-p.exited:
			c.b.Fatalf("manent-server %s exited at start:\n%s", executorID, p.tail())
		default:
		}
		if resp, err := http.Get(p.url() + "/readyz"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			c.b.Fatalf("manent-server %s not ready after a minute:\n%s", executorID, p.tail())
		}
		time.Sleep(20 * time.Millisecond) // a port that is not open yet: nothing to wait on
	}
}

// startAll starts processes at once and waits until each is ready.
func (c *cluster) startAll(role, extra string, executorIDs ...string) []*process {
	out := make([]*process, len(executorIDs))
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, id := range executorIDs {
		wg.Go(func() {
			p := c.start(id, role, extra)
			mu.Lock()
			out[i] = p
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// stop ends a process as an orchestrator does (SIGTERM), waiting for it.
func (p *process) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(40 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// kill ends a process with SIGKILL, as a crash of its machine would, and
// returns once it is gone.
func (p *process) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

func (c *cluster) stopAll() {
	var wg sync.WaitGroup
	for _, p := range c.procs {
		wg.Go(p.stop)
	}
	wg.Wait()
	for _, p := range c.procs {
		_ = p.log.Close()
	}
	c.procs = nil
}

// tail is the end of a process's log, for a failure message.
func (p *process) tail() string {
	b, err := os.ReadFile(p.log.Name())
	if err != nil {
		return err.Error()
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// submit posts a descriptor to the api process's REST endpoint.
func submit(ctx context.Context, api *process, descriptor []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, api.url()+"/api/v1/deployments", bytes.NewReader(descriptor))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+benchToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("POST /api/v1/deployments: %d %s", resp.StatusCode, body)
	}
	return nil
}

func freePort(b *testing.B) int {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	return port
}

// benchApp is the application_name of the benchmark's own connections:
// their backends are left out of PostgreSQL's CPU.
const benchApp = "manent-bench"

// benchConn is url with the benchmark's application_name.
func benchConn(b *testing.B, dbURL string) string {
	b.Helper()
	if strings.HasPrefix(dbURL, "postgres://") || strings.HasPrefix(dbURL, "postgresql://") {
		u, err := url.Parse(dbURL)
		if err != nil {
			b.Fatal(err)
		}
		q := u.Query()
		q.Set("application_name", benchApp)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dbURL + " application_name=" + benchApp
}

// postgresCPU measures the CPU of the benchmark's PostgreSQL when it runs
// on this machine: its postmaster, every process under it (backends,
// writers, autovacuum) and the children it reaped, less the backends of the
// benchmark's own connections.
type postgresCPU struct {
	postmaster int
	exclude    map[int]bool
}

// findPostgres finds the postmaster of dbURL's server from a backend of
// the benchmark (its parent); ok is false when PostgreSQL runs elsewhere.
func findPostgres(b *testing.B, dbURL string) (postgresCPU, bool) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, benchConn(b, dbURL))
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		b.Fatal(err)
	}
	st, err := readStat(backend)
	if err != nil {
		b.Logf("PostgreSQL's backend %d is not a process of this machine: its CPU is not counted", backend)
		return postgresCPU{}, false
	}
	return postgresCPU{postmaster: st.ppid, exclude: map[int]bool{}}, true
}

// benchBackends records the backends of the benchmark's connections, to
// leave them out.
func (pg *postgresCPU) benchBackends(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = $1", benchApp)
	if err != nil {
		return err
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return err
	}
	for _, p := range pids {
		pg.exclude[int(p)] = true
	}
	return nil
}

// total is the CPU PostgreSQL has used so far. A backend that ends
// between two readings moves from the sum of the live children to the
// postmaster's reaped time, whole: the difference of two totals counts it
// once.
func (pg *postgresCPU) total() (time.Duration, error) {
	pm, err := readStat(pg.postmaster)
	if err != nil {
		return 0, err
	}
	sum := pm.cpu + pm.reaped
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pg.exclude[pid] {
			continue
		}
		st, err := readStat(pid)
		if err != nil || st.ppid != pg.postmaster {
			continue // gone meanwhile, or not PostgreSQL's
		}
		sum += st.cpu
	}
	return sum, nil
}

// processCPU is the CPU a process has used so far.
func processCPU(p *process) time.Duration {
	st, err := readStat(p.pid())
	if err != nil {
		return 0 // gone: measured before it stopped
	}
	return st.cpu
}
