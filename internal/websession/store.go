package websession

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"manent.dev/manent/deploy"
)

// Methods a session was opened with.
const (
	MethodOIDC  = "oidc"
	MethodToken = "token"
)

// touchEvery bounds the writes of last_seen_at: a session in use is
// written at most once a minute, not at every request.
const touchEvery = time.Minute

// purgeEvery bounds the purges of what is past its time: at most one a
// minute per process, not one per sign-in started (GET /auth/login is open
// to anyone, and each purge is a DELETE on two tables).
const purgeEvery = time.Minute

// ErrNoSession is a session ID that opens nothing: unknown, signed out,
// expired or idle too long. The browser must sign in again.
var ErrNoSession = deploy.Errorf(deploy.EUNAUTHENTICATED, "your session ended: sign in again")

// Session is a signed-in browser.
type Session struct {
	Identity deploy.Identity
	Method   string
	// TokenSHA256 is the hex SHA-256 of the static token a token session
	// was opened with; "" for OIDC.
	TokenSHA256 string
	CreatedAt   time.Time
	LastSeenAt  time.Time
	ExpiresAt   time.Time
}

// Options configure a Store.
type Options struct {
	// TTL is the absolute lifetime of a session, IdleTimeout how long it
	// may go unused.
	TTL, IdleTimeout time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// MaxOpenFlows bounds the sign-ins under way; 0 is MaxOpenFlows.
	MaxOpenFlows int
}

// Store keeps sessions and sign-ins under way in PostgreSQL, so that every
// API process of an installation knows them.
type Store struct {
	db  bun.IDB
	o   Options
	now func() time.Time

	purgeMu   sync.Mutex
	lastPurge time.Time
}

// NewStore returns the store of db.
func NewStore(db bun.IDB, o Options) *Store {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, o: o, now: now}
}

func (s *Store) maxFlows() int {
	if s.o.MaxOpenFlows > 0 {
		return s.o.MaxOpenFlows
	}
	return MaxOpenFlows
}

// TTL is the absolute lifetime of a session.
func (s *Store) TTL() time.Duration { return s.o.TTL }

func digest(v string) []byte {
	sum := sha256.Sum256([]byte(v))
	return sum[:]
}

// randomID is 256 bits of the system's randomness, in base64url.
func randomID() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand panics rather)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Create opens a session for sess's identity and returns its ID, for the
// cookie; only its hash is stored. Sessions past their time are purged on
// the way, so the table holds the live ones and a few.
func (s *Store) Create(ctx context.Context, sess Session) (string, Session, error) {
	if sess.Identity.Anonymous() {
		return "", Session{}, errors.New("create session: no identity")
	}
	now := s.now().UTC()
	if err := s.purge(ctx, now); err != nil {
		return "", Session{}, err
	}
	id := randomID()
	sess.CreatedAt, sess.LastSeenAt, sess.ExpiresAt = now, now, now.Add(s.o.TTL)
	groups := sess.Identity.Groups
	if groups == nil {
		groups = []string{}
	}
	_, err := s.db.NewRaw(`INSERT INTO manent.sessions (id_hash, subject, groups, method, token_sha256, created_at, last_seen_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, digest(id), sess.Identity.Subject, pgdialect.Array(groups), sess.Method,
		sess.TokenSHA256, sess.CreatedAt, sess.LastSeenAt, sess.ExpiresAt).Exec(ctx)
	if err != nil {
		return "", Session{}, fmt.Errorf("create session: %w", err)
	}
	return id, sess, nil
}

// Lookup returns the live session of id: ErrNoSession when there is none,
// it has expired or it went unused past the idle timeout (it is removed
// then). It records the use, at most once a minute.
func (s *Store) Lookup(ctx context.Context, id string) (Session, error) {
	if id == "" || len(id) > 128 {
		return Session{}, ErrNoSession
	}
	now := s.now().UTC()
	var sess Session
	var groups []string
	err := s.db.NewRaw(`SELECT subject, groups, method, token_sha256, created_at, last_seen_at, expires_at
		FROM manent.sessions WHERE id_hash = ?`, digest(id)).Scan(ctx,
		&sess.Identity.Subject, pgdialect.Array(&groups), &sess.Method, &sess.TokenSHA256, &sess.CreatedAt, &sess.LastSeenAt, &sess.ExpiresAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, fmt.Errorf("read session: %w", err)
	}
	if !now.Before(sess.ExpiresAt) || !now.Before(sess.LastSeenAt.Add(s.o.IdleTimeout)) {
		if err := s.Delete(ctx, id); err != nil {
			return Session{}, err
		}
		return Session{}, ErrNoSession
	}
	if len(groups) > 0 {
		sess.Identity.Groups = groups
	}
	if now.Sub(sess.LastSeenAt) >= touchEvery {
		if _, err := s.db.NewRaw(`UPDATE manent.sessions SET last_seen_at = ? WHERE id_hash = ?`, now, digest(id)).Exec(ctx); err != nil {
			return Session{}, fmt.Errorf("record session use: %w", err)
		}
		sess.LastSeenAt = now
	}
	return sess, nil
}

// Delete ends the session of id (signing out); an unknown ID is no error.
func (s *Store) Delete(ctx context.Context, id string) error {
	if _, err := s.db.NewRaw(`DELETE FROM manent.sessions WHERE id_hash = ?`, digest(id)).Exec(ctx); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	return nil
}

// DeleteSubject ends every session of an identity (signing out
// everywhere) and returns how many there were.
func (s *Store) DeleteSubject(ctx context.Context, subject string) (int, error) {
	res, err := s.db.NewRaw(`DELETE FROM manent.sessions WHERE subject = ?`, subject).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("end sessions: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// purge removes the sessions and sign-ins past their time, unless this
// store purged less than purgeEvery ago: what expired since waits a minute
// at most, and Lookup and Finish check the times themselves.
func (s *Store) purge(ctx context.Context, now time.Time) error {
	s.purgeMu.Lock()
	if !s.lastPurge.IsZero() && now.Sub(s.lastPurge) < purgeEvery && !now.Before(s.lastPurge) {
		s.purgeMu.Unlock()
		return nil
	}
	s.lastPurge = now
	s.purgeMu.Unlock()
	if _, err := s.db.NewRaw(`DELETE FROM manent.sessions WHERE expires_at <= ? OR last_seen_at <= ?`,
		now, now.Add(-s.o.IdleTimeout)).Exec(ctx); err != nil {
		return fmt.Errorf("purge sessions: %w", err)
	}
	if _, err := s.db.NewRaw(`DELETE FROM manent.signin_flows WHERE expires_at <= ?`, now).Exec(ctx); err != nil {
		return fmt.Errorf("purge sign-ins: %w", err)
	}
	return nil
}
