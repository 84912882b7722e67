package devoidc

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Lifetimes of what the provider issues: short, so that the demo shows
// refreshes and expiries.
const (
	tokenLifetime   = 15 * time.Minute
	refreshLifetime = 12 * time.Hour
)

// storage keeps the provider's state in memory: it lives and dies with the
// process, as a development provider should.
type storage struct {
	client *client
	users  []User
	key    signingKey
	// extra are claims added to every token of a user (tests: an overage).
	extra map[string]map[string]any
	// pollInterval is the device grant's; now is the clock that paces it.
	pollInterval time.Duration
	now          func() time.Time

	mu       sync.Mutex
	requests map[string]*authRequest
	codes    map[string]string // code → auth request ID
	refresh  map[string]*refreshToken
	devices  map[string]*deviceEntry // device code → entry
	userCode map[string]string       // user code → device code
}

type deviceEntry struct {
	state    op.DeviceAuthorizationState
	userCode string
	// lastPoll and interval pace the client (RFC 8628 §3.5): a poll
	// sooner than interval after the last one is slow_down, and adds 5 s.
	lastPoll time.Time
	interval time.Duration
}

var (
	_ op.Storage                    = (*storage)(nil)
	_ op.DeviceAuthorizationStorage = (*storage)(nil)
	_ op.CanSetUserinfoFromRequest  = (*storage)(nil)
)

var errNotFound = errors.New("not found")

type signingKey struct {
	id  string
	key *rsa.PrivateKey
}

func (k *signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *signingKey) Key() any                                    { return k.key }
func (k *signingKey) ID() string                                  { return k.id }

type publicKey struct{ k *signingKey }

func (p publicKey) ID() string                         { return p.k.id }
func (p publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (p publicKey) Use() string                        { return "sig" }
func (p publicKey) Key() any                           { return &p.k.key.PublicKey }

func newStorage(c *client, o Options) (*storage, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("generate signing key: %w", err)
	}
	return &storage{client: c, users: o.Users, key: signingKey{id: rand.Text()[:16], key: key}, extra: o.ExtraClaims,
		pollInterval: o.DevicePollInterval, now: o.Now,
		requests: map[string]*authRequest{}, codes: map[string]string{}, refresh: map[string]*refreshToken{},
		devices: map[string]*deviceEntry{}, userCode: map[string]string{}}, nil
}

// user finds a user by subject.
func (s *storage) user(subject string) (User, bool) {
	i := slices.IndexFunc(s.users, func(u User) bool { return u.Subject == subject })
	if i < 0 {
		return User{}, false
	}
	return s.users[i], true
}

// checkPassword returns the subject of the user name and password.
func (s *storage) checkPassword(name, password string) (string, bool) {
	for _, u := range s.users {
		if u.Name == name && subtle.ConstantTimeCompare([]byte(u.Password), []byte(password)) == 1 {
			return u.Subject, true
		}
	}
	return "", false
}

// claims are the claims of the user's tokens beyond the standard ones.
func (s *storage) claims(subject string) map[string]any {
	u, ok := s.user(subject)
	if !ok {
		return nil
	}
	c := map[string]any{"preferred_username": u.Name, "groups": slices.Clone(u.Groups)}
	for k, v := range s.extra[u.Name] {
		if v == nil {
			delete(c, k)
			continue
		}
		c[k] = v
	}
	return c
}

func (s *storage) CreateAuthRequest(_ context.Context, r *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	if slices.Contains(r.Prompt, oidc.PromptNone) {
		return nil, oidc.ErrLoginRequired()
	}
	a := &authRequest{id: rand.Text(), clientID: r.ClientID, redirectURI: r.RedirectURI, state: r.State,
		nonce: r.Nonce, scopes: r.Scopes, response: r.ResponseType, mode: r.ResponseMode, created: time.Now()}
	if r.CodeChallenge != "" {
		a.challenge = &oidc.CodeChallenge{Challenge: r.CodeChallenge, Method: r.CodeChallengeMethod}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[a.id] = a
	return a, nil
}

func (s *storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.requests[id]
	if !ok {
		return nil, errNotFound
	}
	return a, nil
}

func (s *storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	id, ok := s.codes[code]
	s.mu.Unlock()
	if !ok {
		return nil, errNotFound
	}
	return s.AuthRequestByID(ctx, id)
}

// signIn marks an auth request signed in by subject.
func (s *storage) signIn(id, subject string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.requests[id]
	if !ok {
		return errNotFound
	}
	a.subject, a.authTime, a.done = subject, time.Now(), true
	return nil
}

func (s *storage) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[code] = id
	return nil
}

// DeleteAuthRequest is called once a code was exchanged: the code cannot
// be used twice.
func (s *storage) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.requests, id)
	for code, rid := range s.codes {
		if rid == id {
			delete(s.codes, code)
		}
	}
	return nil
}

func (s *storage) CreateAccessToken(context.Context, op.TokenRequest) (string, time.Time, error) {
	return rand.Text(), time.Now().Add(tokenLifetime), nil
}

func (s *storage) CreateAccessAndRefreshTokens(_ context.Context, r op.TokenRequest, current string) (string, string, time.Time, error) {
	t := &refreshToken{subject: r.GetSubject(), audience: r.GetAudience(), scopes: r.GetScopes(),
		expires: time.Now().Add(refreshLifetime)}
	switch req := r.(type) {
	case op.IDTokenRequest:
		t.clientID, t.authTime, t.amr = req.GetClientID(), req.GetAuthTime(), req.GetAMR()
	default:
		t.clientID = s.client.id
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if current != "" {
		// A refresh token is used once: the answer holds its successor.
		if _, ok := s.refresh[current]; !ok {
			return "", "", time.Time{}, op.ErrInvalidRefreshToken
		}
		delete(s.refresh, current)
	}
	next := rand.Text() + rand.Text()
	s.refresh[next] = t
	return rand.Text(), next, time.Now().Add(tokenLifetime), nil
}

func (s *storage) TokenRequestByRefreshToken(_ context.Context, token string) (op.RefreshTokenRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.refresh[token]
	if !ok || time.Now().After(t.expires) {
		return nil, op.ErrInvalidRefreshToken
	}
	return &refreshRequest{t: t}, nil
}

func (s *storage) TerminateSession(_ context.Context, subject, clientID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, t := range s.refresh {
		if t.subject == subject && t.clientID == clientID {
			delete(s.refresh, k)
		}
	}
	return nil
}

func (s *storage) GetRefreshTokenInfo(_ context.Context, _ string, token string) (string, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.refresh[token]
	if !ok {
		return "", "", op.ErrInvalidRefreshToken
	}
	return t.subject, token, nil
}

func (s *storage) RevokeToken(_ context.Context, token, _, _ string) *oidc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.refresh, token)
	return nil
}

func (s *storage) SigningKey(context.Context) (op.SigningKey, error) { return &s.key, nil }

func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *storage) KeySet(context.Context) ([]op.Key, error) { return []op.Key{publicKey{&s.key}}, nil }

func (s *storage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	if id != s.client.id {
		return nil, errNotFound
	}
	return s.client, nil
}

func (s *storage) AuthorizeClientIDSecret(context.Context, string, string) error {
	return errors.New("the demo client is public: it has no secret")
}

func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

func (s *storage) SetUserinfoFromRequest(_ context.Context, info *oidc.UserInfo, r op.IDTokenRequest, scopes []string) error {
	return s.setUserinfo(info, r.GetSubject(), scopes)
}

func (s *storage) SetUserinfoFromToken(_ context.Context, info *oidc.UserInfo, _, subject, _ string) error {
	return s.setUserinfo(info, subject, []string{oidc.ScopeOpenID, oidc.ScopeProfile, oidc.ScopeEmail, "groups"})
}

func (s *storage) setUserinfo(info *oidc.UserInfo, subject string, scopes []string) error {
	u, ok := s.user(subject)
	if !ok {
		return errNotFound
	}
	info.Subject = subject
	for _, sc := range scopes {
		switch sc {
		case oidc.ScopeProfile:
			info.PreferredUsername, info.Name = u.Name, u.Name
		case oidc.ScopeEmail:
			info.Email, info.EmailVerified = u.Name+"@example.com", true
		}
	}
	for k, v := range s.claims(subject) {
		if k != "preferred_username" {
			info.AppendClaims(k, v)
		}
	}
	return nil
}

func (s *storage) SetIntrospectionFromToken(_ context.Context, r *oidc.IntrospectionResponse, _, subject, clientID string) error {
	r.Active, r.Subject, r.ClientID = true, subject, clientID
	return nil
}

func (s *storage) GetPrivateClaimsFromScopes(_ context.Context, subject, _ string, _ []string) (map[string]any, error) {
	return s.claims(subject), nil
}

func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errNotFound
}

func (s *storage) ValidateJWTProfileScopes(_ context.Context, _ string, scopes []string) ([]string, error) {
	return scopes, nil
}

func (s *storage) Health(context.Context) error { return nil }

func (s *storage) StoreDeviceAuthorization(_ context.Context, clientID, deviceCode, userCode string, expires time.Time, scopes []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.userCode[userCode]; taken {
		return op.ErrDuplicateUserCode
	}
	// Expired requests go, so that the low-entropy user codes stay rare.
	for dc, e := range s.devices {
		if time.Now().After(e.state.Expires) {
			delete(s.userCode, e.userCode)
			delete(s.devices, dc)
		}
	}
	s.devices[deviceCode] = &deviceEntry{userCode: userCode, interval: s.pollInterval,
		state: op.DeviceAuthorizationState{ClientID: clientID, Scopes: scopes, Expires: expires}}
	s.userCode[userCode] = deviceCode
	return nil
}

func (s *storage) GetDeviceAuthorizatonState(_ context.Context, clientID, deviceCode string) (*op.DeviceAuthorizationState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.devices[deviceCode]
	if !ok || e.state.ClientID != clientID {
		return nil, errNotFound
	}
	now := s.now()
	if !e.lastPoll.IsZero() && now.Sub(e.lastPoll) < e.interval {
		e.lastPoll = now
		e.interval += 5 * time.Second
		return nil, context.DeadlineExceeded // the op package answers slow_down
	}
	e.lastPoll = now
	st := e.state
	if st.Done {
		// A device code gives its tokens once.
		delete(s.userCode, e.userCode)
		delete(s.devices, deviceCode)
	}
	return &st, nil
}

// decideDevice completes (subject set) or denies the device authorization
// of a user code.
func (s *storage) decideDevice(userCode, subject string, allow bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.devices[s.userCode[userCode]]
	if !ok || time.Now().After(e.state.Expires) || e.state.Done || e.state.Denied {
		return errNotFound
	}
	if !allow {
		e.state.Denied = true
		return nil
	}
	e.state.Done, e.state.Subject, e.state.AuthTime, e.state.AMR = true, subject, time.Now(), []string{"pwd"}
	return nil
}
