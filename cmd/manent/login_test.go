package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/internal/devoidc"
	"manent.dev/manent/internal/oidc/login"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/server"
)

// syncBuffer is a buffer the test reads while the CLI writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startManent runs a whole manent server whose auth.oidc is the provider
// at issuer ("": none), with a static token ci and the demo users'
// groups allowed to read.
func startManent(t *testing.T, issuer string) string {
	t.Helper()
	dir := t.TempDir()
	sum := sha256.Sum256([]byte("ci-token"))
	oidc := ""
	if issuer != "" {
		oidc = fmt.Sprintf("  oidc: {issuer: %q, client_id: %s}\n", issuer, devoidc.ClientID)
	}
	cfg := fmt.Sprintf(`server:
  executor_id: test
  default_tenant: demo
  work_dir: work
auth:
%s  tokens:
    - {name: ci, sha256: %s, groups: [ci]}
rbac:
  policy: |
    p, group:release-managers, demo, *, deployment.read
    p, group:developers, demo, *, deployment.read
envconfig:
  dir: envconfig
`, oidc, hex.EncodeToString(sum[:]))
	if err := os.MkdirAll(filepath.Join(dir, "envconfig"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "manent.yml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DATABASE_URL", pgtest.URL(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := server.Main(ctx, server.Config{ConfigPath: path, Listen: "127.0.0.1:0",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("server.Main: %v", err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(runCtx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		_ = srv.Close()
	})
	return srv.URL()
}

// loginRun is a run of the CLI for the login tests: a home of its own,
// waits that pass on a clock of the test, and the user played by approve
// (called at each wait with what the CLI printed so far).
type loginRun struct {
	t      *testing.T
	env    map[string]string
	clock  time.Time
	waits  []time.Duration
	onWait func(stderr string)
	open   func(url string) error
	http   *http.Client
}

func newLoginRun(t *testing.T, serverURL string) *loginRun {
	home := t.TempDir()
	return &loginRun{t: t, clock: time.Now(),
		env: map[string]string{envServer: serverURL, "HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config")}}
}

func (l *loginRun) run(args ...string) cliResult {
	l.t.Helper()
	var out, errb syncBuffer
	var mu sync.Mutex
	a := &app{
		stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return l.env[k] },
		now:    func() time.Time { return t0 },
		loginNow: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			return l.clock
		},
		sleep: func(_ context.Context, d time.Duration) error {
			mu.Lock()
			l.waits = append(l.waits, d)
			l.clock = l.clock.Add(d)
			mu.Unlock()
			if l.onWait != nil {
				l.onWait(errb.String())
			}
			return nil
		},
		openBrowser: l.open,
		loginHTTP:   l.http,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := a.run(ctx, args)
	return cliResult{stdout: out.String(), stderr: errb.String(), code: code}
}

func (l *loginRun) file() string {
	return login.Store{Dir: filepath.Join(l.env["XDG_CONFIG_HOME"], "manent")}.Path(l.env[envServer])
}

var userCode = regexp.MustCompile(`open (http://\S+) and enter the code (\S+)`)

// approver plays user at the development provider's verification page
// once the CLI printed its code: allow or deny.
func approver(t *testing.T, idp *devoidc.Provider, user string, allow bool) func(string) {
	done := false
	return func(stderr string) {
		m := userCode.FindStringSubmatch(stderr)
		if done || m == nil {
			return
		}
		done = true
		if err := idp.Verify(context.Background(), devoidc.DeviceCode{VerificationURI: m[1], UserCode: m[2]}, user, userPassword(t, idp, user), allow); err != nil {
			t.Errorf("verify: %v", err)
		}
	}
}

func userPassword(t *testing.T, idp *devoidc.Provider, name string) string {
	for _, u := range idp.Users() {
		if u.Name == name {
			return u.Password
		}
	}
	t.Fatalf("no user %s", name)
	return ""
}

type whoami struct {
	Subject     string   `json:"subject"`
	Groups      []string `json:"groups"`
	Credentials string   `json:"credentials"`
}

func parseWhoami(t *testing.T, r cliResult) whoami {
	t.Helper()
	var w whoami
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &w) != nil {
		t.Fatalf("whoami: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	return w
}

// TestLoginDeviceFlow: manent login against a real server and the
// development provider's device grant: the user approves after a poll, the
// tokens are stored 0600 in a directory 0700, whoami is oidc:alice from
// the stored login; MANENT_TOKEN wins over it; an expired access token is
// refreshed and the new refresh token stored; a file others may read is
// refused; logout revokes and removes it.
func TestLoginDeviceFlow(t *testing.T) {
	idp, err := devoidc.Start(devoidc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Close() })
	srv := startManent(t, idp.Issuer())
	l := newLoginRun(t, srv)
	l.onWait = approver(t, idp, "alice", true)

	r := l.run("login")
	iss, _ := url.Parse(idp.Issuer())
	if r.code != 0 || !strings.Contains(r.stderr, "Signed in to "+srv+" as oidc:alice (groups release-managers).") ||
		!strings.Contains(r.stderr, "The server's identity provider is "+iss.Host+".") {
		t.Fatalf("login: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if len(l.waits) != 1 || l.waits[0] != 5*time.Second {
		t.Errorf("waits = %v, want one of the provider's 5 s", l.waits)
	}
	st, err := os.Stat(l.file())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", st, err)
	}
	if dir, err := os.Stat(filepath.Dir(l.file())); err != nil || dir.Mode().Perm() != 0o700 {
		t.Fatalf("token directory: %v %v", dir, err)
	}
	if w := parseWhoami(t, l.run("whoami", "-o", "json")); w.Subject != "oidc:alice" || len(w.Groups) != 1 ||
		w.Groups[0] != "release-managers" || w.Credentials != credentialsLogin {
		t.Fatalf("whoami = %+v", w)
	}

	l.env[envToken] = "ci-token"
	if w := parseWhoami(t, l.run("whoami", "-o", "json")); w.Subject != "token:ci" || w.Credentials != envToken {
		t.Fatalf("with MANENT_TOKEN: whoami = %+v", w)
	}
	delete(l.env, envToken)

	// The access token expired: the next command refreshes it.
	s := login.Store{Dir: filepath.Dir(l.file())}
	before, err := s.Load(srv)
	if err != nil {
		t.Fatal(err)
	}
	expired := *before
	expired.AccessTokenExpiry = time.Now().Add(-time.Minute)
	if err := s.Save(&expired); err != nil {
		t.Fatal(err)
	}
	if w := parseWhoami(t, l.run("whoami", "-o", "json")); w.Subject != "oidc:alice" {
		t.Fatalf("after the refresh: whoami = %+v", w)
	}
	after, err := s.Load(srv)
	if err != nil || after.RefreshToken == before.RefreshToken || after.AccessToken == before.AccessToken ||
		!after.AccessTokenExpiry.After(time.Now()) {
		t.Fatalf("not refreshed: %+v %v", after, err)
	}

	if err := os.Chmod(l.file(), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := l.run("whoami"); r.code != 3 || !strings.Contains(r.stderr, "accessible by others (mode 0644") {
		t.Fatalf("a file others may read: exit %d\n%s", r.code, r.stderr)
	}
	if err := os.Chmod(l.file(), 0o600); err != nil {
		t.Fatal(err)
	}

	r = l.run("logout")
	if r.code != 0 || !strings.Contains(r.stderr, "Signed out of "+srv) || strings.Contains(r.stderr, "warning") {
		t.Fatalf("logout: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(l.file()); !os.IsNotExist(err) {
		t.Fatalf("the token file is still there: %v", err)
	}
	// Revoked at the provider: its refresh token no longer works.
	prov, err := login.Discover(context.Background(), login.Settings{Issuer: idp.Issuer(), ClientID: devoidc.ClientID}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prov.Refresh(context.Background(), after); err == nil {
		t.Fatal("the refresh token works after logout")
	}
	if r := l.run("whoami"); r.code != 3 || !strings.Contains(r.stderr, "manent login") {
		t.Fatalf("whoami after logout: exit %d\n%s", r.code, r.stderr)
	}
	if r := l.run("logout"); r.code != 0 || !strings.Contains(r.stderr, "Not signed in to "+srv) {
		t.Fatalf("logout again: exit %d\n%s", r.code, r.stderr)
	}
}

// TestLoginRefusals: a denied sign-in, a code that expires while no one
// approves it, and a server without single sign-on end with their exit
// codes and store nothing.
func TestLoginRefusals(t *testing.T) {
	idp, err := devoidc.Start(devoidc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Close() })
	srv := startManent(t, idp.Issuer())

	tests := []struct {
		name   string
		onWait func(l *loginRun) func(string)
		code   int
		want   string
	}{
		{name: "denied", code: 3, want: "the sign-in was denied at the identity provider",
			onWait: func(*loginRun) func(string) { return approver(t, idp, "carol", false) }},
		{name: "expired", code: 3, want: "the sign-in code expired before it was approved: run manent login again",
			onWait: func(l *loginRun) func(string) {
				return func(string) { l.clock = l.clock.Add(10 * time.Minute) }
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLoginRun(t, srv)
			l.onWait = tt.onWait(l)
			r := l.run("login")
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, want %d with %q\n%s", r.code, tt.code, tt.want, r.stderr)
			}
			if _, err := os.Stat(l.file()); !os.IsNotExist(err) {
				t.Fatalf("a token file after a refusal: %v", err)
			}
		})
	}

	// A provider whose device authorization sends the user elsewhere: the
	// address is never shown.
	var issuer string
	phisher := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			_ = json.NewEncoder(w).Encode(map[string]any{"issuer": issuer, "authorization_endpoint": issuer + "/authorize",
				"token_endpoint": issuer + "/token", "jwks_uri": issuer + "/keys", "device_authorization_endpoint": issuer + "/device_authorization"})
		case "/device_authorization":
			_ = json.NewEncoder(w).Encode(map[string]any{"device_code": "dc", "user_code": "ABCD-EFGH",
				"verification_uri": "https://login.example.net/device", "expires_in": 600, "interval": 5})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(phisher.Close)
	issuer = phisher.URL
	phishing := startManent(t, issuer)
	phished := newLoginRun(t, phishing)
	if r := phished.run("login", "--flow", "device"); r.code != 3 || !strings.Contains(r.stderr, `refused: the verification address the identity provider sent is on "login.example.net"`) ||
		strings.Contains(r.stderr, "ABCD-EFGH") || strings.Contains(r.stderr, "https://login.example.net") {
		t.Fatalf("a verification address on another host: exit %d\n%s", r.code, r.stderr)
	}
	// In auto mode (Entra, Google), the browser flow instead, on the
	// issuer's own address: the browser here comes back with a denial.
	opened := ""
	phished.open = func(u string) error {
		opened = u
		a, err := url.Parse(u)
		if err != nil {
			return err
		}
		q := a.Query()
		resp, err := http.Get(q.Get("redirect_uri") + "?error=access_denied&state=" + url.QueryEscape(q.Get("state")))
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}
	if r := phished.run("login", "--browser"); r.code != 3 || !strings.Contains(r.stderr, `device sign-in page is on login.example.net, not on the issuer's host`) ||
		!strings.HasPrefix(opened, issuer+"/authorize?") || !strings.Contains(r.stderr, "the sign-in was denied") || strings.Contains(r.stderr, "ABCD-EFGH") {
		t.Fatalf("auto mode with a device page on another host: exit %d (opened %q)\n%s", r.code, opened, r.stderr)
	}

	bare := newLoginRun(t, startManent(t, ""))
	if r := bare.run("login"); r.code != 2 || !strings.Contains(r.stderr, "no single sign-on") {
		t.Fatalf("a server without auth.oidc: exit %d\n%s", r.code, r.stderr)
	}
	if r := newLoginRun(t, srv).run("login", "--flow", "sideways"); r.code != 2 {
		t.Fatalf("--flow sideways: exit %d\n%s", r.code, r.stderr)
	}
}

// TestLoginCodeFlow: --flow code --browser opens the provider's sign-in
// page (here: a test playing the browser, bob signing in), which comes
// back to the CLI on 127.0.0.1.
func TestLoginCodeFlow(t *testing.T) {
	idp, err := devoidc.Start(devoidc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Close() })
	srv := startManent(t, idp.Issuer())
	l := newLoginRun(t, srv)
	opened := ""
	l.open = func(u string) error {
		opened = u
		jar, _ := cookiejar.New(nil)
		hc := &http.Client{Jar: jar, Timeout: 30 * time.Second}
		resp, err := hc.Get(u)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		id := resp.Request.URL.Query().Get("authRequestID")
		resp, err = hc.PostForm(resp.Request.URL.String(), url.Values{"authRequestID": {id}, "username": {"bob"},
			"password": {userPassword(t, idp, "bob")}})
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}
	// A MANENT_TOKEN in the environment would win over the login: said.
	l.env[envToken] = "ci-token"
	r := l.run("login", "--flow", "code", "--browser", "-o", "json")
	delete(l.env, envToken)
	if r.code != 0 || !strings.Contains(r.stderr, "as oidc:bob (groups developers)") || !strings.Contains(r.stderr, opened) ||
		!strings.HasPrefix(opened, idp.Issuer()+"/") || !strings.Contains(r.stderr, "MANENT_TOKEN is set, and wins over this sign-in") {
		t.Fatalf("login: exit %d (opened %q)\n%s", r.code, opened, r.stderr)
	}
	if w := parseWhoami(t, r); w.Subject != "oidc:bob" || w.Credentials != credentialsLogin {
		t.Fatalf("login -o json printed %+v", w)
	}
	if w := parseWhoami(t, l.run("whoami", "-o", "json")); w.Subject != "oidc:bob" {
		t.Fatalf("whoami = %+v", w)
	}
}

// TestLoginPlainHTTP: the CLI refuses to sign in over plain http to
// another machine unless --insecure, and refuses an issuer the server
// names that is plain http on another machine, whatever --insecure says.
func TestLoginPlainHTTP(t *testing.T) {
	for _, c := range []struct {
		server   string
		insecure bool
		refused  bool
	}{
		{"http://manent.example.com", false, true},
		{"http://manent.example.com:8080/", false, true},
		{"http://manent.example.com", true, false},
		{"https://manent.example.com", false, false},
		{"http://127.0.0.1:8080", false, false},
		{"http://localhost:8080", false, false},
	} {
		err := plainHTTPProblem(c.server, c.insecure)
		if (err != nil) != c.refused {
			t.Errorf("plainHTTPProblem(%q, %v) = %v, want refused %v", c.server, c.insecure, err, c.refused)
		}
	}
	l := newLoginRun(t, "http://manent.example.com")
	if r := l.run("login"); r.code != 2 || !strings.Contains(r.stderr, "is plain http:// on another machine") {
		t.Fatalf("login to a plain http server: exit %d\n%s", r.code, r.stderr)
	}

	// A server (reached on this machine) that names a plain http issuer
	// elsewhere: refused before the issuer is asked anything.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != login.SettingsPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(login.Settings{Issuer: "http://login.example.com/realms/main", ClientID: "manent"})
	}))
	t.Cleanup(srv.Close)
	r := newLoginRun(t, srv.URL).run("login", "--insecure")
	if r.code != 3 || !strings.Contains(r.stderr, "http://login.example.com/realms/main, is not https") {
		t.Fatalf("a plain http issuer: exit %d\n%s", r.code, r.stderr)
	}
}
