package sshexec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"

	"manent.dev/manent/deploy"
)

// Endpoint is a login on a host.
type Endpoint struct {
	Host string
	// Port is 22 when zero.
	Port int
	User string
}

// Addr is host:port, as dialled.
func (e Endpoint) Addr() string {
	port := e.Port
	if port == 0 {
		port = 22
	}
	return net.JoinHostPort(e.Host, strconv.Itoa(port))
}

// String is user@host:port, how logs and errors name the endpoint.
func (e Endpoint) String() string { return e.User + "@" + e.Addr() }

// Auth is how a login authenticates: a private key (PEM, without a
// passphrase) or a password. It is secret material: nothing here ever
// writes it to a log or an error.
type Auth struct {
	PrivateKey []byte
	Password   string
}

func (a Auth) methods(g *promptGuard) ([]ssh.AuthMethod, error) {
	switch {
	case len(a.PrivateKey) > 0:
		signer, err := ssh.ParsePrivateKey(a.PrivateKey)
		if err != nil {
			// The parser's message says what kind of problem (no key
			// found, a passphrase) and never quotes the key.
			return nil, deploy.Permanentf("the private key is not usable: %v", err)
		}
		return []ssh.AuthMethod{ssh.PublicKeys(signer)}, nil
	case a.Password != "":
		// sshd often asks for the password through keyboard-interactive
		// (PAM). Only a prompt that asks for a password, without echo,
		// gets it: a second factor or any other question must never
		// receive the password.
		answer := func(_, _ string, questions []string, echos []bool) ([]string, error) {
			answers := make([]string, len(questions))
			for i, q := range questions {
				if !passwordPrompt(q, echos[i]) {
					g.refused(q)
					return nil, errors.New("not a password prompt")
				}
				answers[i] = a.Password
			}
			return answers, nil
		}
		return []ssh.AuthMethod{ssh.Password(a.Password), ssh.KeyboardInteractive(answer)}, nil
	}
	return nil, deploy.Permanentf("no private key and no password to log in with")
}

// passwordPrompt reports whether a keyboard-interactive question asks for
// the password: "Password:", "deploy@web1's password:", never echoed.
func passwordPrompt(q string, echo bool) bool {
	return !echo && strings.Contains(strings.ToLower(q), "password")
}

// promptGuard keeps the first keyboard-interactive question the password
// was not given to, so that the login's failure can say why.
type promptGuard struct {
	mu    sync.Mutex
	asked string
}

func (g *promptGuard) refused(q string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.asked == "" {
		g.asked = strings.TrimSpace(q)
		if len(g.asked) > 80 {
			g.asked = g.asked[:80] + "..."
		}
		if g.asked == "" {
			g.asked = "(an empty prompt)"
		}
	}
}

func (g *promptGuard) question() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.asked
}

// key identifies the secret without holding it, so that a changed secret
// never reuses a connection made with the old one.
func (a Auth) key() string {
	h := sha256.New()
	h.Write(a.PrivateKey)
	h.Write([]byte{0})
	h.Write([]byte(a.Password))
	return hex.EncodeToString(h.Sum(nil))
}

// Pool holds the connections of a process: one per endpoint and secret,
// shared by the steps that use it, closed after IdleTimeout unused. Its
// slots bound the sessions and handshakes of each host.
type Pool struct {
	opts Options

	mu     sync.Mutex
	slots  map[string]chan struct{}
	conns  map[string]*conn
	closed bool
}

// NewPool returns a pool; Close it to close its connections.
func NewPool(o Options) *Pool {
	return &Pool{opts: o.withDefaults(), slots: map[string]chan struct{}{}, conns: map[string]*conn{}}
}

// conn is a pooled connection.
type conn struct {
	key    string
	client *ssh.Client
	// users counts the leases; the idle timer runs while there are none.
	users int
	idle  *time.Timer
	// noSFTP remembers a host without an sftp subsystem.
	noSFTP atomic.Bool
	done   chan struct{}
}

// Close closes every connection; the pool cannot be used after.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for k, c := range p.conns {
		p.drop(k, c)
	}
	return nil
}

// drop forgets c and closes it; p.mu is held.
func (p *Pool) drop(key string, c *conn) {
	if p.conns[key] == c {
		delete(p.conns, key)
	}
	if c.idle != nil {
		c.idle.Stop()
	}
	_ = c.client.Close() // the connection is going either way
}

// acquire takes one of the host's slots, waiting until one is free or ctx
// ends.
func (p *Pool) acquire(ctx context.Context, addr string) (release func(), err error) {
	p.mu.Lock()
	s, ok := p.slots[addr]
	if !ok {
		s = make(chan struct{}, p.opts.MaxSessionsPerHost)
		p.slots[addr] = s
	}
	p.mu.Unlock()
	select {
	case s <- struct{}{}:
		return func() { <-s }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for a free session of the host: %w", context.Cause(ctx))
	}
}

// Client leases a connection to ep, opening one unless the pool has it.
// logf receives what the deploy log must show: a host key not checked,
// said at every lease, so that every step that works on an unchecked
// connection says so in its log, whether it dialled or reused it. The
// error of a host key or a login refused is permanent; a connection that
// could not be made is temporary.
func (p *Pool) Client(ctx context.Context, ep Endpoint, auth Auth, logf func(string, ...any)) (*Client, error) {
	if p.opts.InsecureIgnoreHostKey && logf != nil {
		logf("warning: the host key of %s is not checked (plugins.ssh.insecure_ignore_host_key, for development only)", ep.Addr())
	}
	key := ep.String() + " " + auth.key()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("ssh pool closed")
	}
	if c, ok := p.conns[key]; ok {
		c.users++
		if c.idle != nil {
			c.idle.Stop()
		}
		p.mu.Unlock()
		return &Client{p: p, c: c, ep: ep, auth: auth, logf: logf, reused: true}, nil
	}
	p.mu.Unlock()
	c, err := p.connect(ctx, ep, auth, logf, key)
	if err != nil {
		return nil, err
	}
	return &Client{p: p, c: c, ep: ep, auth: auth, logf: logf}, nil
}

// connect dials ep and puts the connection in the pool, leased once.
func (p *Pool) connect(ctx context.Context, ep Endpoint, auth Auth, logf func(string, ...any), key string) (*conn, error) {
	client, err := p.dial(ctx, ep, auth, logf)
	if err != nil {
		return nil, err
	}
	c := &conn{key: key, client: client, users: 1, done: make(chan struct{})}
	go func() {
		_ = client.Wait() // how it ended does not matter: it is gone
		close(c.done)
		p.mu.Lock()
		if p.conns[key] == c {
			delete(p.conns, key)
		}
		p.mu.Unlock()
	}()
	go p.keepAlive(c)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = client.Close() // unused: the pool closed while it was dialled
		return nil, errors.New("ssh pool closed")
	}
	if old, ok := p.conns[key]; ok && old.users == 0 {
		p.drop(key, old)
	}
	if _, ok := p.conns[key]; !ok {
		p.conns[key] = c
	}
	return c, nil
}

// release ends one lease of c; the last starts its idle timer.
func (p *Pool) release(c *conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c.users--
	if c.users > 0 {
		return
	}
	if p.conns[c.key] != c {
		// Replaced or broken: nobody else will lease it.
		_ = c.client.Close() // its commands are done
		return
	}
	c.idle = time.AfterFunc(p.opts.IdleTimeout, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if c.users == 0 {
			p.drop(c.key, c)
		}
	})
}

// discard takes a broken connection out of the pool; its leases end as
// usual.
func (p *Pool) discard(c *conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns[c.key] == c {
		delete(p.conns, c.key)
	}
	_ = c.client.Close() // broken already
}

// keepAlive closes a connection whose peer stopped answering, so that a
// command on it fails at once rather than at its timeout.
func (p *Pool) keepAlive(c *conn) {
	t := time.NewTicker(p.opts.KeepAlive)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		answered := make(chan error, 1)
		go func() {
			_, _, err := c.client.SendRequest("keepalive@openssh.com", true, nil)
			answered <- err
		}()
		select {
		case err := <-answered:
			if err != nil {
				return
			}
		case <-time.After(2 * p.opts.KeepAlive):
			_ = c.client.Close() // dead: its commands fail now, as temporary errors
			return
		case <-c.done:
			return
		}
	}
}

// dial connects and authenticates to ep, within the connect timeout and a
// slot of the host.
func (p *Pool) dial(ctx context.Context, ep Endpoint, auth Auth, logf func(string, ...any)) (*ssh.Client, error) {
	addr := ep.Addr()
	hk, err := p.opts.checkHostKeys(addr)
	if err != nil {
		return nil, err
	}
	var guard promptGuard
	methods, err := auth.methods(&guard)
	if err != nil {
		return nil, fmt.Errorf("log in as %s: %w", ep, err)
	}
	release, err := p.acquire(ctx, addr)
	if err != nil {
		return nil, err
	}
	defer release()
	dctx, cancel := context.WithTimeout(ctx, p.opts.ConnectTimeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(dctx, "tcp", addr)
	if err != nil {
		var dns *net.DNSError
		if errors.As(err, &dns) && dns.IsNotFound {
			return nil, deploy.Permanentf("connect: no such host")
		}
		// The dialler's error repeats the address the caller names.
		var op *net.OpError
		if errors.As(err, &op) && op.Err != nil {
			err = op.Err
		}
		return nil, fmt.Errorf("cannot connect: %w", dialCause(dctx, err, p.opts.ConnectTimeout))
	}
	// The handshake reads and writes without a context: closing the
	// connection is how the deadline and ctx end it.
	stop := context.AfterFunc(dctx, func() { _ = nc.Close() })
	cc, chans, reqs, err := ssh.NewClientConn(nc, addr, &ssh.ClientConfig{
		User: ep.User, Auth: methods, HostKeyCallback: hk.callback, HostKeyAlgorithms: hk.algorithms,
	})
	if !stop() {
		err = errors.Join(err, dctx.Err())
	}
	if err != nil {
		_ = nc.Close() // the handshake failed: nothing to keep
		switch {
		case hk.refused != nil:
			return nil, deploy.Permanent(hk.refused)
		case guard.question() != "":
			return nil, deploy.Permanentf("the host asked %q (keyboard-interactive), which is not a password prompt: "+
				"manent gives the password to password prompts only, and cannot answer a second factor; log in with ssh.key_secret",
				guard.question())
		case strings.Contains(err.Error(), "unable to authenticate"):
			return nil, deploy.Permanentf("the host refused the login of %s: check the key or the password the environment configuration gives", ep.User)
		}
		return nil, fmt.Errorf("ssh handshake: %w", dialCause(dctx, err, p.opts.ConnectTimeout))
	}
	return ssh.NewClient(cc, chans, reqs), nil
}

// dialCause says a connect timed out in words rather than as a closed
// connection.
func dialCause(ctx context.Context, err error, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %s (plugins.ssh.connect_timeout)", timeout)
	}
	return err
}
