package websession_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/oidc"
	"manent.dev/manent/internal/websession"
)

// The purge runs at most once a minute per store, not at every sign-in:
// a row past its time that appears right after a purge stays until the
// next minute's.
func TestPurgeAtMostOnceAMinute(t *testing.T) {
	ctx := context.Background()
	db := database(t)
	clk := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	store := websession.NewStore(db, websession.Options{TTL: time.Hour, IdleTimeout: time.Hour, Now: clk.now})
	create := func() {
		t.Helper()
		if _, _, err := store.Create(ctx, websession.Session{Identity: deploy.Identity{Subject: "oidc:alice"}, Method: websession.MethodOIDC}); err != nil {
			t.Fatal(err)
		}
	}
	expired := func() int {
		t.Helper()
		var n int
		if err := db.NewRaw(`SELECT count(*) FROM manent.signin_flows WHERE state_hash = '\x01'`).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	create() // the first purge
	if _, err := db.NewRaw(`INSERT INTO manent.signin_flows (state_hash, binding_hash, nonce, verifier, next_path, expires_at)
		VALUES ('\x01', '\x02', 'n', 'v', '/activity', ?)`, clk.now().Add(-time.Minute)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		after time.Duration
		left  int
	}{{0, 1}, {30 * time.Second, 1}, {31 * time.Second, 0}} {
		clk.add(step.after)
		create()
		if n := expired(); n != step.left {
			t.Fatalf("%s later: %d expired sign-ins left, want %d", step.after, n, step.left)
		}
	}
}

// Beyond the bound of sign-ins under way, Start refuses; once they
// expire, sign-ins start again.
func TestOpenSignInsAreBounded(t *testing.T) {
	ctx := context.Background()
	db := database(t)
	clk := &clock{t: time.Now()}
	store := websession.NewStore(db, websession.Options{TTL: time.Hour, IdleTimeout: time.Hour, Now: clk.now, MaxOpenFlows: 3})
	idp := newTestProvider(t)
	cfg := config.OIDC{Issuer: idp.srv.URL, ClientID: "manent"}
	cfg.SetDefaults()
	signin := websession.NewSignIn(store, oidc.New(oidc.Options{Config: cfg}))
	for i := range 3 {
		if _, err := signin.Start(ctx, redirect, "/activity"); err != nil {
			t.Fatalf("sign-in %d: %v", i, err)
		}
	}
	if _, err := signin.Start(ctx, redirect, "/activity"); !errors.Is(err, websession.ErrTooManySignIns) {
		t.Fatalf("a fourth sign-in: %v, want ErrTooManySignIns", err)
	}
	clk.add(websession.FlowLifetime + time.Second)
	if _, err := signin.Start(ctx, redirect, "/activity"); err != nil {
		t.Fatalf("once the others expired: %v", err)
	}
}
