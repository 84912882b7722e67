package devoidc

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/zitadel/oidc/v3/pkg/op"
)

// ClientID is the client manent is at the provider.
const ClientID = "manent"

const (
	loginPath  = "/login"
	devicePath = "/device"
)

// User is a user of the provider. Subject is its sub claim, Name its
// preferred_username.
type User struct {
	Name     string
	Subject  string
	Password string
	Groups   []string
	// Role says, for the people trying the demo, what the groups let the
	// user do under the demo's RBAC.
	Role string
}

// DemoUsers are the demo's users, each with a password made now: the
// groups match the rbac of examples/manent.yml.
func DemoUsers() []User {
	return []User{
		{Name: "alice", Subject: "u-1001", Password: password(), Groups: []string{"release-managers"},
			Role: "release manager: submits, approves, rolls back and overrides freezes in the demo"},
		{Name: "bob", Subject: "u-1002", Password: password(), Groups: []string{"developers"},
			Role: "developer: deploys hello and the shop, as CI does (the deployer role)"},
		{Name: "carol", Subject: "u-1003", Password: password(), Groups: []string{"viewers"},
			Role: "viewer: reads the demo"},
	}
}

func password() string { return rand.Text()[:12] }

// Options configure a provider.
type Options struct {
	// Listen is a loopback address; "" is 127.0.0.1:0 (a free port).
	Listen string
	// Users; nil is DemoUsers().
	Users []User
	// RedirectURIs of the client; nil is the loopback callbacks of
	// manent's browser flow and of the CLI (any port: a native client).
	RedirectURIs []string
	// ExtraClaims adds claims to every token of a user (by Name); a nil
	// value removes the claim: tests make overages with it.
	ExtraClaims map[string]map[string]any
	// DevicePollInterval is the interval the device grant asks clients to
	// poll at; 0 is 5 s, RFC 8628's default. A client that polls sooner
	// gets slow_down, and 5 s more to wait.
	DevicePollInterval time.Duration
	// DeviceLifetime is how long a device code may be used; 0 is 10 min.
	DeviceLifetime time.Duration
	// Now is the clock that paces device polls; nil is time.Now.
	Now func() time.Time
}

// Provider is a running development provider.
type Provider struct {
	issuer  string
	users   []User
	storage *storage
	srv     *http.Server
	done    chan error
}

// Start serves a provider on loopback until Close.
func Start(o Options) (*Provider, error) {
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(o.Listen)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("development oidc provider: %s is not a loopback address such as 127.0.0.1:0", o.Listen)
	}
	if o.Users == nil {
		o.Users = DemoUsers()
	}
	if o.RedirectURIs == nil {
		o.RedirectURIs = []string{"http://127.0.0.1/auth/callback", "http://127.0.0.1/callback", "http://localhost/auth/callback"}
	}
	if o.DevicePollInterval == 0 {
		o.DevicePollInterval = 5 * time.Second
	}
	if o.DeviceLifetime == 0 {
		o.DeviceLifetime = 10 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	st, err := newStorage(&client{id: ClientID, redirects: o.RedirectURIs}, o)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, fmt.Errorf("development oidc provider: listen: %w", err)
	}
	issuer := "http://" + ln.Addr().String()
	// The key that encrypts the provider's opaque values, made now like
	// the signing key: nothing of the provider outlives the process.
	key := sha256.Sum256([]byte(rand.Text() + rand.Text()))
	prov, err := op.NewProvider(&op.Config{
		CryptoKey: key, CodeMethodS256: true, GrantTypeRefreshToken: true,
		DeviceAuthorization: op.DeviceAuthorizationConfig{Lifetime: o.DeviceLifetime, PollInterval: o.DevicePollInterval,
			UserFormPath: devicePath, UserCode: op.UserCodeBase20},
	}, st, op.StaticIssuer(issuer), op.WithAllowInsecure())
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("development oidc provider: %w", err)
	}
	p := &Provider{issuer: issuer, users: o.Users, storage: st, done: make(chan error, 1)}
	mux := http.NewServeMux()
	mux.Handle(loginPath, op.NewIssuerInterceptor(prov.IssuerFromRequest).HandlerFunc(p.login(op.AuthCallbackURL(prov))))
	mux.HandleFunc(devicePath, p.device)
	mux.Handle("/", prov)
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { p.done <- p.srv.Serve(ln) }()
	return p, nil
}

// Issuer is the provider's issuer URL (http://127.0.0.1:<port>).
func (p *Provider) Issuer() string { return p.issuer }

// Users are the provider's users, with their passwords.
func (p *Provider) Users() []User { return slices.Clone(p.users) }

// Close stops the provider.
func (p *Provider) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := p.srv.Shutdown(ctx)
	if serr := <-p.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

var page = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>manent demo sign-in</title></head>
<body><main>
<h1>{{.Title}}</h1>
<p>The development identity provider of manent-server dev: its users and passwords are printed at start.</p>
{{if .Error}}<p role="alert">{{.Error}}</p>{{end}}
{{if .Done}}<p role="status">{{.Done}}</p>{{else}}
<form method="post">
{{if .RequestID}}<input type="hidden" name="authRequestID" value="{{.RequestID}}">{{end}}
{{if .Device}}<label>Code <input name="user_code" value="{{.UserCode}}" autocomplete="off" required></label>{{end}}
<label>User <input name="username" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit" name="decision" value="allow">Sign in</button>
{{if .Device}}<button type="submit" name="decision" value="deny">Deny</button>{{end}}
</form>{{end}}
</main></body></html>
`))

type pageData struct {
	Title, Error, Done, RequestID, UserCode string
	Device                                  bool
}

func render(w http.ResponseWriter, status int, d pageData) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	_ = page.Execute(w, d)
}

// login is the sign-in page of the authorization code flow: the provider
// sends the browser here with the ID of its auth request and takes it back
// at callback once a user signed in.
func (p *Provider) login(callback func(context.Context, string) string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d := pageData{Title: "Sign in to manent", RequestID: r.FormValue("authRequestID")}
		if d.RequestID == "" {
			render(w, http.StatusBadRequest, pageData{Title: d.Title, Error: "No sign-in request: start from manent.", Done: "-"})
			return
		}
		if r.Method != http.MethodPost {
			render(w, http.StatusOK, d)
			return
		}
		subject, ok := p.storage.checkPassword(r.PostFormValue("username"), r.PostFormValue("password"))
		if !ok {
			d.Error = "Unknown user or wrong password."
			render(w, http.StatusUnauthorized, d)
			return
		}
		if err := p.storage.signIn(d.RequestID, subject); err != nil {
			render(w, http.StatusBadRequest, pageData{Title: d.Title, Error: "This sign-in request expired: start again from manent.", Done: "-"})
			return
		}
		http.Redirect(w, r, callback(r.Context(), d.RequestID), http.StatusFound)
	}
}

// device is the verification page of the device authorization grant
// (verification_uri): the user types the code the CLI shows, signs in,
// and allows or denies.
func (p *Provider) device(w http.ResponseWriter, r *http.Request) {
	d := pageData{Title: "Sign in a device to manent", Device: true, UserCode: r.FormValue("user_code")}
	if r.Method != http.MethodPost {
		render(w, http.StatusOK, d)
		return
	}
	subject, ok := p.storage.checkPassword(r.PostFormValue("username"), r.PostFormValue("password"))
	if !ok {
		d.Error = "Unknown user or wrong password."
		render(w, http.StatusUnauthorized, d)
		return
	}
	allow := r.PostFormValue("decision") != "deny"
	if err := p.storage.decideDevice(d.UserCode, subject, allow); err != nil {
		d.Error = "Unknown or expired code: ask the device for a new one."
		render(w, http.StatusBadRequest, d)
		return
	}
	d.Done = "Signed in: go back to your terminal."
	if !allow {
		d.Done = "Denied: the device is not signed in."
	}
	render(w, http.StatusOK, d)
}
