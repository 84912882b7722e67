package postgres_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/pgxquerier"
	"manent.dev/manent/internal/postgres"
)

// proxy forwards connections to the database until cut: from then on the
// database is out of reach for whoever connected through it, as when the
// network or the server goes away.
type proxy struct {
	ln     net.Listener
	mu     sync.Mutex
	conns  []net.Conn
	closed bool
}

// startProxy listens on a free local port and forwards to the server of dbURL.
func startProxy(t *testing.T, dbURL string) *proxy {
	t.Helper()
	cfg, err := pgconn.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	network, addr := "tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	if strings.HasPrefix(cfg.Host, "/") {
		network, addr = "unix", cfg.Host+"/.s.PGSQL."+strconv.Itoa(int(cfg.Port))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	t.Cleanup(p.cut)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial(network, addr)
			if err != nil || !p.track(c, up) {
				_ = c.Close()
				continue
			}
			go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
			go func() { _, _ = io.Copy(c, up); _ = c.Close() }()
		}
	}()
	return p
}

func (p *proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	p.conns = append(p.conns, conns...)
	return true
}

// cut stops listening (the port refuses connections) and breaks every
// connection made through the proxy.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	_ = p.ln.Close()
	for _, c := range p.conns {
		_ = c.Close()
	}
}

// url is dbURL through the proxy.
func (p *proxy) url(t *testing.T, dbURL string) string {
	t.Helper()
	host, port, _ := net.SplitHostPort(p.ln.Addr().String())
	if strings.HasPrefix(dbURL, "postgres://") || strings.HasPrefix(dbURL, "postgresql://") {
		u, err := url.Parse(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		u.Host = net.JoinHostPort(host, port)
		return u.String()
	}
	return dbURL + " host=" + host + " port=" + port
}

// An error of a database out of reach wraps deploy.ErrUnavailable, so the
// engine waits for the database instead of failing a deploy; an error the
// database answers (a constraint, an unknown deploy) does not.
func TestErrorsOfAnUnreachableDatabaseAreUnavailable(t *testing.T) {
	f := newFixture(t)
	f.pending("p", "staging")
	p := startProxy(t, f.url)
	db, err := postgres.Open(f.ctx, p.url(t, f.url))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	cut := postgres.NewStore(db)
	conn, err := pgx.Connect(f.ctx, p.url(t, f.url))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.WithoutCancel(f.ctx)) })
	tx, err := conn.Begin(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.cut()
	done := deployment("done", "staging")
	done.State = deploy.StateSuccess
	tests := []struct {
		name        string
		call        func() error
		unavailable bool
		code        deploy.Code
		prefix      string
	}{
		{"read", func() error { _, err := cut.Get(f.ctx, "p"); return err }, true, deploy.EINTERNAL, "get deployment: "},
		{"write in a transaction", func() error { return cut.AppendLog(f.ctx, deploy.LogLine{DeploymentID: "p", Message: "x"}) }, true, deploy.EINTERNAL, "append log: "},
		{"count a run", func() error { _, err := cut.CountRun(f.ctx, "p", op("p", "deploy", "").Key()); return err }, true, deploy.EINTERNAL, "count the runs of a step: "},
		{"the recorder, in DBOS's transaction", func() error {
			_, err := f.rec.StartRun(f.ctx, pgxquerier.New(tx), "p", time.Now(), false)
			return err
		}, true, deploy.EINTERNAL, "start deployment: "},
		{"a constraint violation", func() error {
			_, _, err := f.store.CreateDeployment(f.ctx, done, func(any) error { return nil })
			return err
		}, false, deploy.EINTERNAL, "create deployment: "},
		{"an unknown deploy", func() error { _, err := f.store.Get(f.ctx, "nope"); return err }, false, deploy.ENOTFOUND, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil {
				t.Fatal("no error")
			}
			if got := deploy.Unavailable(err); got != tt.unavailable {
				t.Errorf("Unavailable(%v) = %v, want %v", err, got, tt.unavailable)
			}
			if got := errors.Is(err, deploy.ErrUnavailable); got != tt.unavailable {
				t.Errorf("errors.Is(%v, ErrUnavailable) = %v", err, got)
			}
			wantCode(t, err, tt.code)
			if !strings.HasPrefix(err.Error(), tt.prefix) {
				t.Errorf("error %q does not start with %q", err, tt.prefix)
			}
		})
	}
}
