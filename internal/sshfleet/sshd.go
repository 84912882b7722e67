package sshfleet

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// startTimeout bounds the wait for sshd to listen: it answers in
// milliseconds, or has failed and said why.
const startTimeout = 30 * time.Second

// sshd is one sshd process in the foreground (-D), logging to stderr (-e).
type sshd struct {
	cmd    *exec.Cmd
	exited chan struct{}
	// logDone is closed when every line of its stderr is read.
	logDone chan struct{}
	mu      sync.Mutex
	log     strings.Builder
}

func startSSHD(config string, out io.Writer) (*sshd, error) {
	s := &sshd{exited: make(chan struct{}), logDone: make(chan struct{})}
	s.cmd = exec.Command(sshdPath, "-D", "-e", "-f", config)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("sshd: %w", err)
	}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start sshd: %w", err)
	}
	listening := make(chan struct{})
	go s.read(stderr, out, listening)
	go func() {
		<-s.logDone
		_ = s.cmd.Wait() // its status is in its log
		close(s.exited)
	}()
	select {
	case <-listening:
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("sshd exited at start:\n%s", s.output())
	case <-time.After(startTimeout):
		_ = s.stop()
		return nil, fmt.Errorf("sshd not listening after %s:\n%s", startTimeout, s.output())
	}
}

// read keeps sshd's log lines, copies them to out, and closes listening at
// the line that says sshd accepts connections.
func (s *sshd) read(r io.Reader, out io.Writer, listening chan struct{}) {
	defer close(s.logDone)
	once := sync.Once{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		s.mu.Lock()
		s.log.WriteString(line + "\n")
		s.mu.Unlock()
		if out != nil {
			_, _ = fmt.Fprintln(out, line) // a copy for a reader: the log keeps the line
		}
		if strings.HasPrefix(line, "Server listening on ") {
			once.Do(func() { close(listening) })
		}
	}
}

func (s *sshd) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// stop kills sshd and the processes of its connections: each connection
// is a child of the listener in a session of its own, which a signal to
// the listener alone would leave running. The listener is stopped first,
// so that it forks no connection between the listing and the kill, and
// killed last, so that its children are still its own when listed.
func (s *sshd) stop() error {
	select {
	case <-s.exited:
		return nil
	default:
	}
	pid := s.cmd.Process.Pid
	_ = syscall.Kill(pid, syscall.SIGSTOP) // it may have ended meanwhile, as below
	for _, p := range append(descendants(pid), pid) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	select {
	case <-s.exited:
		return nil
	case <-time.After(startTimeout):
		return errors.New("sshd still running after SIGKILL")
	}
}

// descendants lists the processes under pid, read from /proc, children
// first.
func descendants(pid int) []int {
	children := map[int][]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, stat := range dirs {
		b, err := os.ReadFile(stat)
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, err1 := strconv.Atoi(f[1])
		p, err2 := strconv.Atoi(filepath.Base(filepath.Dir(stat)))
		if err1 == nil && err2 == nil {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	for queue := children[pid]; len(queue) > 0; {
		p := queue[0]
		queue = append(queue[1:], children[p]...)
		out = append(out, p)
	}
	return out
}
