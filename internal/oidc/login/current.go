package login

import (
	"context"
	"net/http"
	"time"
)

// Current returns server's login, refreshed first when the token it sends
// has expired or expires within a minute. The refresh happens under the
// login's lock, and the login is read again once the lock is held: a run
// of the CLI that waited for another one's refresh uses its result rather
// than spending the refresh token a second time. The new tokens are
// stored before they are used. ErrNotSignedIn when there is no login.
func (s Store) Current(ctx context.Context, server string, client *http.Client, now func() time.Time) (*Tokens, error) {
	if now == nil {
		now = time.Now
	}
	t, err := s.Load(server)
	if err != nil || !t.NeedsRefresh(now()) {
		return t, err
	}
	unlock, err := s.Lock(server)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if t, err = s.Load(server); err != nil || !t.NeedsRefresh(now()) {
		return t, err
	}
	p, err := Discover(ctx, Settings{Issuer: t.Issuer, ClientID: t.ClientID, Audiences: t.Audiences}, client, now)
	if err != nil {
		return nil, err
	}
	nt, err := p.Refresh(ctx, t)
	if err != nil {
		return nil, err
	}
	if err := s.Save(nt); err != nil {
		return nil, err
	}
	return nt, nil
}
