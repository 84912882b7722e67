package sshcommand

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"manent.dev/manent/internal/sshexec"
)

// host is a target the suite runs on: the in-process server of sshtest,
// or OpenSSH's sshd with a login that is not root (sshfleet).
type host struct {
	// client leases a connection as the login.
	client func(t *testing.T) *sshexec.Client
	// scratch is a directory on this machine (the targets are local) that
	// the login may read and write: the programs and what they report.
	scratch string
	// secretsDir is the SecretsDir of the runs.
	secretsDir string
	// signals: the host reports a command killed by a signal as such
	// (OpenSSH under a ForceCommand, as the fleet's, reports the status
	// 128+n of the login shell that ran it).
	signals bool
	// uid and home are the login's: its commands run in its home.
	uid  int
	home string
	// commands lists every command line the login's clients sent, when
	// the host can tell.
	commands func() []string
}

// place is a directory of one test in the scratch directory, where its
// programs and their reports are.
type place struct {
	t   *testing.T
	dir string
}

func (h *host) place(t *testing.T) *place {
	t.Helper()
	dir, err := os.MkdirTemp(h.scratch, "t-")
	if err != nil {
		t.Fatal(err)
	}
	// The login writes its reports there, whoever it is.
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return &place{t: t, dir: dir}
}

// program writes an executable sh script; $here is its directory.
func (p *place) program(name, body string) string {
	p.t.Helper()
	path := filepath.Join(p.dir, name)
	script := "#!/bin/sh\nhere=$(dirname \"$0\") || exit 99\n" + body + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		p.t.Fatal(err)
	}
	return path
}

// read is a file a program wrote; "" when there is none.
func (p *place) read(name string) string {
	p.t.Helper()
	b, err := os.ReadFile(filepath.Join(p.dir, name))
	if err != nil && !os.IsNotExist(err) {
		p.t.Fatal(err)
	}
	return string(b)
}

func (p *place) write(name, content string) {
	p.t.Helper()
	if err := os.WriteFile(filepath.Join(p.dir, name), []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// fifo makes a fifo any login can open.
func (p *place) fifo(name string) string {
	p.t.Helper()
	path := filepath.Join(p.dir, name)
	if err := syscall.Mkfifo(path, 0o666); err != nil {
		p.t.Fatal(err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		p.t.Fatal(err)
	}
	// A command cut off by the test (a crash, a lost connection) may
	// still wait on the target: let it end with the test.
	p.t.Cleanup(func() {
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_, _ = f.WriteString("go\n") // nobody may be reading any more
			_ = f.Close()
		}
	})
	return path
}

// release lets a program blocked on the fifo go on. The program holds the
// fifo open (exec 3<>) before it says it is ready, so this never waits.
func release(t *testing.T, fifo string) {
	t.Helper()
	f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatalf("open the fifo: %v", err)
	}
	defer func() { _ = f.Close() }()
	if _, err := f.WriteString("go\n"); err != nil {
		t.Fatalf("write the fifo: %v", err)
	}
}

// blockOn is the part of a program that says "ready" and then waits for
// release.
func blockOn(fifo string) string {
	return "exec 3<>" + sshexec.Quote(fifo) + "\nprintf 'ready\\n'\nread -r x <&3\n"
}

// sink is a writer of a command's output that records its lines and tells
// when one of them comes.
type sink struct {
	mu      sync.Mutex
	partial []byte
	lines   []string
	waits   map[string]chan struct{}
}

func newSink(want ...string) *sink {
	s := &sink{waits: map[string]chan struct{}{}}
	for _, w := range want {
		s.waits[w] = make(chan struct{})
	}
	return s
}

func (s *sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		l := string(s.partial[:i])
		s.partial = s.partial[i+1:]
		s.lines = append(s.lines, l)
		if c, ok := s.waits[l]; ok {
			close(c)
			delete(s.waits, l)
		}
	}
	return len(p), nil
}

// seen is closed when the line comes; the line must be one of newSink's.
func (s *sink) seen(line string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.waits[line]; ok {
		return c
	}
	c := make(chan struct{})
	close(c)
	return c
}

func (s *sink) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}

// await waits for ready, or fails with what ended the run first.
func await(t *testing.T, ready <-chan struct{}, done <-chan error) {
	t.Helper()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("the run ended before the command was ready: %v", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("the command never said it was ready")
	}
}

// unique is a fresh name for a deploy or a secret's value.
func unique(t *testing.T, prefix string) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return prefix + hex.EncodeToString(b)
}

// exists reports whether path is there (a symbolic link counts).
func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Lstat(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return err == nil
}
