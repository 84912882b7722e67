package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	binDir    string
	buildOnce sync.Once
	buildErr  error
)

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "manent-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// build compiles a binary of the repository; stamp changes its content so
// a rebuild yields another binary (and another DBOS binary hash).
func build(t *testing.T, pkg, out, stamp string) string {
	t.Helper()
	path, err := buildBinary(pkg, out, stamp)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func buildBinary(pkg, out, stamp string) (string, error) {
	path := filepath.Join(binDir, out)
	cmd := exec.Command("go", "build", "-o", path, "-ldflags", "-X main.buildStamp="+stamp, pkg)
	cmd.Dir = repoRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return path, nil
}

// binaries builds the server and the CLI once for all tests. The error is
// kept so that every test after a failed build fails with its cause, not
// on a missing binary.
func binaries(t *testing.T) (server, cli string) {
	t.Helper()
	buildOnce.Do(func() {
		if _, buildErr = buildBinary("./cmd/manent-server", "manent-server", "one"); buildErr != nil {
			return
		}
		_, buildErr = buildBinary("./cmd/manent", "manent", "one")
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "manent-server"), filepath.Join(binDir, "manent")
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	// The server is about to listen on it: the port must really be free.
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

// server is one manent-server process.
type server struct {
	t      *testing.T
	bin    string
	config string
	dbURL  string
	port   int
	// role is --role of serve; "" for the configuration's.
	role   string
	cmd    *exec.Cmd
	log    *bytes.Buffer
	mu     *sync.Mutex
	exited chan struct{}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (s *server) URL() string { return fmt.Sprintf("http://127.0.0.1:%d", s.port) }

// start runs the server and waits until /readyz answers.
func (s *server) start() {
	s.t.Helper()
	args := []string{"serve", "-c", s.config, "--listen", fmt.Sprintf("127.0.0.1:%d", s.port)}
	if s.role != "" {
		args = append(args, "--role", s.role)
	}
	s.cmd = exec.Command(s.bin, args...)
	s.cmd.Env = append(os.Environ(), "DATABASE_URL="+s.dbURL)
	w := lockedWriter{s.mu, s.log}
	s.cmd.Stdout, s.cmd.Stderr = w, w
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.exited = make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-s.exited:
			s.t.Fatalf("manent-server exited at start:\n%s", s.output())
		default:
		}
		resp, err := http.Get(s.URL() + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("manent-server not listening after 60s:\n%s", s.output())
		}
		time.Sleep(50 * time.Millisecond) // polling a port that is not open yet: nothing to wait on
	}
}

func (s *server) kill() {
	s.t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

// terminate stops the server with SIGTERM, as an orchestrator does, and
// waits for it to exit. Unlike stop it never escalates to SIGKILL: a test
// of graceful restarts must not turn one into a crash unnoticed.
func (s *server) terminate() {
	s.t.Helper()
	s.sigterm()
	s.waitExit()
}

// sigterm asks the server to stop gracefully and returns at once.
func (s *server) sigterm() { _ = s.cmd.Process.Signal(syscall.SIGTERM) }

// waitExit waits for the server to exit after a SIGTERM.
func (s *server) waitExit() {
	s.t.Helper()
	select {
	case <-s.exited:
	case <-time.After(60 * time.Second):
		s.t.Fatalf("manent-server still running 60s after SIGTERM:\n%s", s.output())
	}
}

// exitCode is the exit code of the last process, once it exited (-1 when
// a signal ended it).
func (s *server) exitCode() int {
	<-s.exited
	return s.cmd.ProcessState.ExitCode()
}

func (s *server) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

func (s *server) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// cli runs the manent CLI with a token and returns stdout, stderr and the exit code.
func cli(t *testing.T, bin, serverURL, token string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "MANENT_SERVER="+serverURL, "MANENT_TOKEN="+token)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("manent %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	return stdout.String(), stderr.String(), code
}
