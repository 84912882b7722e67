package websession_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/internal/websession"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// database is a migrated database of the test's own.
func database(t *testing.T) *bun.DB {
	t.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := postgres.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	return db.Bun()
}

// clock is a time the test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestSessions(t *testing.T) {
	ctx := context.Background()
	db := database(t)
	clk := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	store := websession.NewStore(db, websession.Options{TTL: 12 * time.Hour, IdleTimeout: 2 * time.Hour, Now: clk.now})
	alice := deploy.Identity{Subject: "oidc:alice", Groups: []string{"release-managers", "on call"}}

	open := func(id deploy.Identity) string {
		t.Helper()
		sid, s, err := store.Create(ctx, websession.Session{Identity: id, Method: websession.MethodOIDC})
		if err != nil {
			t.Fatal(err)
		}
		if !s.ExpiresAt.Equal(clk.now().Add(12 * time.Hour)) {
			t.Errorf("expires %v, want 12 h after the sign-in", s.ExpiresAt)
		}
		return sid
	}
	ended := func(sid, why string) {
		t.Helper()
		if _, err := store.Lookup(ctx, sid); !errors.Is(err, websession.ErrNoSession) || deploy.ErrorCode(err) != deploy.EUNAUTHENTICATED {
			t.Errorf("%s: Lookup = %v, want ErrNoSession (UNAUTHENTICATED)", why, err)
		}
	}

	t.Run("an opaque ID of 256 bits, stored only as its hash", func(t *testing.T) {
		sid := open(alice)
		if len(sid) < 43 {
			t.Errorf("session ID %q is shorter than 256 bits in base64url", sid)
		}
		var stored [][]byte
		if err := db.NewRaw(`SELECT id_hash FROM manent.sessions`).Scan(ctx, &stored); err != nil {
			t.Fatal(err)
		}
		for _, h := range stored {
			if bytes.Contains(h, []byte(sid)) || len(h) != 32 {
				t.Errorf("the table holds %q, not a SHA-256 of the ID", h)
			}
		}
		got, err := store.Lookup(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		if got.Identity.Subject != "oidc:alice" || len(got.Identity.Groups) != 2 || got.Identity.Groups[1] != "on call" {
			t.Errorf("identity %+v, want alice with her groups", got.Identity)
		}
		if other := open(alice); other == sid {
			t.Error("two sign-ins got the same session ID")
		}
	})

	t.Run("unknown IDs open nothing", func(t *testing.T) {
		for _, sid := range []string{"", "x", string(make([]byte, 200))} {
			ended(sid, "unknown "+sid)
		}
	})

	t.Run("idle timeout, kept off by use", func(t *testing.T) {
		sid := open(alice)
		for range 3 {
			clk.add(90 * time.Minute)
			if _, err := store.Lookup(ctx, sid); err != nil {
				t.Fatalf("a session used every 90 min ended: %v", err)
			}
		}
		clk.add(2 * time.Hour)
		ended(sid, "unused for 2 h")
	})

	t.Run("absolute expiry, however used", func(t *testing.T) {
		sid := open(alice)
		for range 11 {
			clk.add(time.Hour)
			if _, err := store.Lookup(ctx, sid); err != nil {
				t.Fatalf("session ended before its TTL: %v", err)
			}
		}
		clk.add(time.Hour)
		ended(sid, "12 h after the sign-in")
	})

	t.Run("sign out, and sign out everywhere", func(t *testing.T) {
		one, two, three := open(alice), open(alice), open(alice)
		bob := open(deploy.Identity{Subject: "oidc:bob"})
		if err := store.Delete(ctx, one); err != nil {
			t.Fatal(err)
		}
		ended(one, "signed out")
		if _, err := store.Lookup(ctx, two); err != nil {
			t.Errorf("signing out one browser ended another: %v", err)
		}
		n, err := store.DeleteSubject(ctx, "oidc:alice")
		if err != nil {
			t.Fatal(err)
		}
		if n < 2 {
			t.Errorf("ended %d sessions of alice, want at least her two", n)
		}
		ended(two, "signed out everywhere")
		ended(three, "signed out everywhere")
		if _, err := store.Lookup(ctx, bob); err != nil {
			t.Errorf("alice signing out everywhere ended bob's session: %v", err)
		}
	})

	t.Run("expired sessions are purged", func(t *testing.T) {
		open(alice)
		clk.add(13 * time.Hour)
		open(deploy.Identity{Subject: "oidc:carol"})
		var n int
		if err := db.NewRaw(`SELECT count(*) FROM manent.sessions WHERE expires_at <= ?`, clk.now()).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%d expired sessions left after a new sign-in", n)
		}
	})

	t.Run("no session without an identity", func(t *testing.T) {
		if _, _, err := store.Create(ctx, websession.Session{Method: websession.MethodOIDC}); err == nil {
			t.Error("an anonymous session was created")
		}
	})
}
