package sshtest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Server is a running test server. Start it with Start; the test's
// cleanup stops it.
type Server struct {
	t  testing.TB
	ln net.Listener

	mu      sync.Mutex
	hostKey ssh.Signer
	users   map[string]*User
	conns   map[*ssh.ServerConn]bool
	noSFTP  bool
	// path is the PATH of the commands; the test process's when "".
	path   string
	onExec func(user, command string) (drop bool)
	// open and peak count the sessions open now and at most; opened and
	// execs every session and exec request received.
	open, peak, opened, execs, connections int
	// changed is closed and replaced whenever open changes.
	changed chan struct{}
	wg      sync.WaitGroup
}

// User is a login of the server.
type User struct {
	Name string
	// Home is the directory its commands run in: a temporary directory
	// of the test.
	Home     string
	keys     [][]byte
	password string
}

// Start starts a server on a loopback port.
func Start(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("sshtest: listen: %v", err)
	}
	s := &Server{t: t, ln: ln, hostKey: newSigner(t), users: map[string]*User{},
		conns: map[*ssh.ServerConn]bool{}, changed: make(chan struct{})}
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(s.stop)
	return s
}

func (s *Server) stop() {
	_ = s.ln.Close() // ends serve
	s.DropConnections()
	s.wg.Wait()
}

// Host is the server's address, Port its port.
func (s *Server) Host() string { return "127.0.0.1" }

// Port is the port the server listens on.
func (s *Server) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// AddUser adds a login with a new home directory.
func (s *Server) AddUser(name string) *User {
	s.t.Helper()
	u := &User{Name: name, Home: s.t.TempDir()}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users[name] = u
	return u
}

// AuthorizeKey lets the user log in with the key.
func (s *Server) AuthorizeKey(u *User, key ssh.PublicKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u.keys = append(u.keys, key.Marshal())
}

// SetPassword lets the user log in with the password.
func (s *Server) SetPassword(u *User, password string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u.password = password
}

// KnownHostsLine is the server's line for a known_hosts file.
func (s *Server) KnownHostsLine() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return knownhosts.Line([]string{knownhosts.Normalize(net.JoinHostPort(s.Host(), strconv.Itoa(s.Port())))}, s.hostKey.PublicKey())
}

// WriteKnownHosts writes a known_hosts file that lists the server's key.
func (s *Server) WriteKnownHosts(path string) {
	s.t.Helper()
	if err := os.WriteFile(path, []byte(s.KnownHostsLine()+"\n"), 0o600); err != nil {
		s.t.Fatalf("sshtest: write known_hosts: %v", err)
	}
}

// HostKey is the public key the server offers now.
func (s *Server) HostKey() ssh.PublicKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hostKey.PublicKey()
}

// ChangeHostKey gives the server a new host key, as a reinstalled host
// (or someone in the middle) would offer.
func (s *Server) ChangeHostKey() {
	k := newSigner(s.t)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hostKey = k
}

// DisableSFTP makes the server refuse the sftp subsystem.
func (s *Server) DisableSFTP() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noSFTP = true
}

// SetPath sets the PATH the commands run with, so that a test can take a
// tool away from the host.
func (s *Server) SetPath(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.path = path
}

// OnExec calls f with every exec request before it runs; f may block
// (to hold the session open), and when it returns true the server drops
// the connection instead of running the command. nil removes the hook.
func (s *Server) OnExec(f func(user, command string) (drop bool)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onExec = f
}

// DropConnections closes every connection, killing what runs on it.
func (s *Server) DropConnections() {
	s.mu.Lock()
	conns := make([]*ssh.ServerConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		_ = c.Close() // gone either way
	}
}

// Execs is the number of exec requests received, run or not.
func (s *Server) Execs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.execs
}

// Connections is the number of connections that logged in.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connections
}

// Sessions is the number of sessions opened.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened
}

// PeakSessions is the largest number of sessions open at once.
func (s *Server) PeakSessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

// OpenSessions returns the number of sessions open now and a channel
// closed at the next change of it, to wait on.
func (s *Server) OpenSessions() (int, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open, s.changed
}

func (s *Server) sessionDelta(d int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open += d
	if d > 0 {
		s.opened++
	}
	s.peak = max(s.peak, s.open)
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) serve() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.handle(nc)
		}()
	}
}

func (s *Server) config() *ssh.ServerConfig {
	check := func(meta ssh.ConnMetadata, ok func(u *User) bool) (*ssh.Permissions, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if u, found := s.users[meta.User()]; found && ok(u) {
			return &ssh.Permissions{}, nil
		}
		return nil, fmt.Errorf("sshtest: %s may not log in so", meta.User())
	}
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(meta ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			return check(meta, func(u *User) bool {
				for _, k := range u.keys {
					if bytes.Equal(k, key.Marshal()) {
						return true
					}
				}
				return false
			})
		},
		PasswordCallback: func(meta ssh.ConnMetadata, password []byte) (*ssh.Permissions, error) {
			return check(meta, func(u *User) bool { return u.password != "" && u.password == string(password) })
		},
	}
	s.mu.Lock()
	cfg.AddHostKey(s.hostKey)
	s.mu.Unlock()
	return cfg
}

func (s *Server) handle(nc net.Conn) {
	sc, chans, reqs, err := ssh.NewServerConn(nc, s.config())
	if err != nil {
		_ = nc.Close() // refused: a host key the client did not accept, a bad login
		return
	}
	s.mu.Lock()
	s.conns[sc] = true
	s.connections++
	u := s.users[sc.User()]
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, sc)
		s.mu.Unlock()
	}()
	go ssh.DiscardRequests(reqs)
	var wg sync.WaitGroup
	for nch := range chans {
		if nch.ChannelType() != "session" {
			_ = nch.Reject(ssh.UnknownChannelType, "sessions only")
			continue
		}
		ch, creqs, err := nch.Accept()
		if err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.session(sc, u, ch, creqs)
		}()
	}
	wg.Wait()
}

// session serves one session: an exec or the sftp subsystem.
func (s *Server) session(sc *ssh.ServerConn, u *User, ch ssh.Channel, reqs <-chan *ssh.Request) {
	s.sessionDelta(1)
	// A session ends, for the count, before the server closes it: once
	// the client sees it closed, it is no longer counted.
	end := sync.OnceFunc(func() { s.sessionDelta(-1) })
	defer func() {
		end()
		_ = ch.Close() // the client may have closed it first
	}()
	var proc *exec.Cmd
	var exited chan struct{}
	for req := range reqs {
		switch req.Type {
		case "exec":
			var p struct{ Command string }
			if proc != nil || ssh.Unmarshal(req.Payload, &p) != nil {
				_ = req.Reply(false, nil)
				continue
			}
			s.mu.Lock()
			s.execs++
			hook := s.onExec
			s.mu.Unlock()
			if hook != nil && hook(u.Name, p.Command) {
				_ = sc.Close()
				return
			}
			_ = req.Reply(true, nil)
			proc, exited = s.start(u, p.Command, ch, end)
			if proc == nil {
				return
			}
		case "subsystem":
			var p struct{ Name string }
			s.mu.Lock()
			ok := !s.noSFTP
			s.mu.Unlock()
			if proc != nil || ssh.Unmarshal(req.Payload, &p) != nil || p.Name != "sftp" || !ok {
				_ = req.Reply(false, nil)
				continue
			}
			_ = req.Reply(true, nil)
			srv, err := sftp.NewServer(ch, sftp.WithServerWorkingDirectory(u.Home))
			if err != nil {
				return
			}
			go func() {
				for r := range reqs {
					_ = r.Reply(false, nil)
				}
			}()
			_ = srv.Serve() // ends when the client closes the session
			return
		case "signal":
			if proc != nil {
				_ = syscall.Kill(-proc.Process.Pid, syscall.SIGKILL)
			}
		default:
			if req.WantReply {
				_ = req.Reply(false, nil)
			}
		}
	}
	// The client is gone or closed the session: nothing of it may keep
	// running, as the test may be over.
	if proc != nil {
		_ = syscall.Kill(-proc.Process.Pid, syscall.SIGKILL)
		<-exited
	}
}

// start runs command in u's home, its output on ch; when it ends the
// exit status is sent and ch closed.
func (s *Server) start(u *User, command string, ch ssh.Channel, end func()) (*exec.Cmd, chan struct{}) {
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = u.Home
	s.mu.Lock()
	path := s.path
	s.mu.Unlock()
	if path == "" {
		path = os.Getenv("PATH")
	}
	cmd.Env = []string{"HOME=" + u.Home, "USER=" + u.Name, "LOGNAME=" + u.Name, "SHELL=/bin/sh",
		"PATH=" + path, "LC_ALL=C"}
	cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil
	}
	if err := cmd.Start(); err != nil {
		_, _ = fmt.Fprintf(ch.Stderr(), "sshtest: %v\n", err)
		_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{127}))
		return nil, nil
	}
	go func() {
		_, _ = io.Copy(stdin, ch) // until the client's EOF or the command's end
		_ = stdin.Close()
	}()
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		err := cmd.Wait()
		status := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				_, _ = ch.SendRequest("exit-signal", false, ssh.Marshal(struct {
					Signal     string
					CoreDumped bool
					Error      string
					Lang       string
				}{Signal: "KILL"}))
				end()
				_ = ch.Close()
				return
			}
			status = ee.ExitCode()
		} else if err != nil {
			status = 127
		}
		_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(status)}))
		end()
		_ = ch.Close()
	}()
	return cmd, exited
}

func newSigner(t testing.TB) ssh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatalf("sshtest: host key: %v", err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatalf("sshtest: host key: %v", err)
	}
	return signer
}

// NewKey returns a new client key: its public half for AuthorizeKey, and
// the private key in OpenSSH's PEM form, as a secret holds it.
func NewKey(t testing.TB) (ssh.PublicKey, []byte) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatalf("sshtest: client key: %v", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatalf("sshtest: client key: %v", err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatalf("sshtest: client key: %v", err)
	}
	return signer.PublicKey(), pem.EncodeToMemory(block)
}

// Path is a path in the user's home.
func (u *User) Path(elem ...string) string {
	return filepath.Join(append([]string{u.Home}, elem...)...)
}
