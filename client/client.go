package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/Khan/genqlient/graphql"
	"github.com/gorilla/websocket"

	"manent.dev/manent/deploy"
)

// DefaultServer is where the CLI looks for a server when nothing says otherwise.
const DefaultServer = "http://127.0.0.1:8080"

// Client talks to one manent server as one identity. It is safe for
// concurrent use.
type Client struct {
	// server is the address as the user gave it, without userinfo: what
	// error messages name.
	server       string
	endpoint     string
	endpointPath string
	wsEndpoint   string
	// addrErr is set when server is not a usable URL; every call returns it.
	addrErr error
	token   string
	// tokenSource, when set, gives the token of each request instead.
	tokenSource func(context.Context) (string, error)

	httpClient *http.Client
	gql        graphql.Client
	dialer     *websocket.Dialer

	reconnectWindow time.Duration
	keepAlive       time.Duration
	userAgent       string
}

// Option changes a Client made by New.
type Option func(*Client)

// WithHTTPClient replaces the HTTP client of queries and mutations (the
// bearer token is added on top of its transport).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) { c.httpClient = hc }
}

// WithReconnectWindow bounds how long Follow and WatchActivity keep trying
// to reconnect a dropped subscription before they give up with an
// UnreachableError (default 5 minutes: long enough for a server restart,
// even one that rebuilds the binary first).
func WithReconnectWindow(d time.Duration) Option {
	return func(c *Client) { c.reconnectWindow = d }
}

// WithKeepAlive sets how often a subscription pings the server; a
// connection that stays silent for three periods is considered dead and
// reconnected (default 20s).
func WithKeepAlive(d time.Duration) Option {
	return func(c *Client) { c.keepAlive = d }
}

// WithTokenSource makes every request (and every websocket connection)
// ask source for its token rather than use the one given to New: a login
// whose tokens are refreshed while a deploy is followed. An error of
// source fails the request with it.
func WithTokenSource(source func(context.Context) (string, error)) Option {
	return func(c *Client) { c.tokenSource = source }
}

// WithUserAgent sets the User-Agent of every request.
func WithUserAgent(ua string) Option {
	return func(c *Client) { c.userAgent = ua }
}

// New returns a client of the server at server (http://host:port, with or
// without the /graphql path; a bare host:port means http) that
// authenticates with token (no Authorization at all when empty). An unusable
// address is reported by the first call, as an UnreachableError.
func New(server, token string, opts ...Option) *Client {
	c := &Client{
		token:           token,
		reconnectWindow: 5 * time.Minute,
		keepAlive:       20 * time.Second,
		userAgent:       "manent-cli",
	}
	for _, o := range opts {
		o(c)
	}
	c.server, c.endpoint, c.wsEndpoint, c.addrErr = endpoints(server)
	if u, err := url.Parse(c.endpoint); err == nil {
		c.endpointPath = u.Path
	}
	if c.httpClient == nil {
		c.httpClient = &http.Client{Timeout: 60 * time.Second}
	}
	hc := *c.httpClient
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = &authTransport{token: token, source: c.tokenSource, userAgent: c.userAgent, base: base}
	// A GraphQL endpoint never redirects; following one could hand the token
	// to another host.
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.gql = &mappedClient{c: c, inner: graphql.NewClient(c.endpoint, &hc)}
	c.dialer = &websocket.Dialer{
		Proxy:            http.ProxyFromEnvironment,
		HandshakeTimeout: 30 * time.Second,
	}
	return c
}

// Server returns the server address as configured, without userinfo.
func (c *Client) Server() string { return c.server }

// GraphQL returns the genqlient client for the generated operations of this
// package, with errors mapped like the methods of Client do.
func (c *Client) GraphQL() graphql.Client { return c.gql }

// endpoints derives the HTTP and websocket URLs of /graphql from what the
// user typed.
func endpoints(server string) (display, httpURL, wsURL string, err error) {
	s := strings.TrimSpace(server)
	if s == "" {
		s = DefaultServer
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, perr := url.Parse(s)
	if perr != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		shown := server
		if perr == nil && u.User != nil {
			u.User = nil
			shown = u.String()
		}
		return shown, "", "", &UnreachableError{Server: shown, Err: fmt.Errorf("%q is not an http:// or https:// address", shown)}
	}
	u.User = nil
	u.RawQuery, u.Fragment = "", ""
	display = strings.TrimSuffix(u.String(), "/")
	if !strings.HasSuffix(u.Path, "/graphql") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/graphql"
	}
	httpURL = u.String()
	if u.Scheme == "https" {
		u.Scheme = "wss"
	} else {
		u.Scheme = "ws"
	}
	return display, httpURL, u.String(), nil
}

// tokenSourceError is the failure of WithTokenSource's source: the
// caller's own error, given back as it is, never taken for a server out of
// reach.
type tokenSourceError struct{ err error }

func (e *tokenSourceError) Error() string { return e.err.Error() }
func (e *tokenSourceError) Unwrap() error { return e.err }

type authTransport struct {
	token     string
	source    func(context.Context) (string, error)
	userAgent string
	base      http.RoundTripper
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	token := t.token
	if t.source != nil {
		var err error
		if token, err = t.source(req.Context()); err != nil {
			return nil, &tokenSourceError{err: err}
		}
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	if t.userAgent != "" {
		r.Header.Set("User-Agent", t.userAgent)
	}
	return t.base.RoundTrip(r)
}

// mappedClient maps the errors of every generated operation, so callers of
// GraphQL() get the same errors as the methods of Client.
type mappedClient struct {
	c     *Client
	inner graphql.Client
}

func (m *mappedClient) MakeRequest(ctx context.Context, req *graphql.Request, resp *graphql.Response) error {
	if m.c.addrErr != nil {
		return m.c.addrErr
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return m.c.mapError(ctx, m.inner.MakeRequest(ctx, req, resp))
}

// Terminal reports whether nothing more will happen to a deploy in state s.
func Terminal(s DeploymentState) bool { return deploy.State(s).Terminal() }

// notFound is the server's answer for a deploy it does not show, for the
// queries that answer null rather than NOT_FOUND.
func notFound(id string) error {
	return &APIError{Code: deploy.ENOTFOUND, Message: deploy.DeploymentNotFound(id).Message}
}

// Deployment returns a deploy with its steps and status JSON. NOT_FOUND
// when it does not exist or is not readable.
func (c *Client) Deployment(ctx context.Context, id string) (*DeploymentDetail, error) {
	resp, err := GetDeployment(ctx, c.gql, id)
	if err != nil {
		return nil, err
	}
	if resp.Deployment == nil {
		return nil, notFound(id)
	}
	return resp.Deployment, nil
}

// ListFilter selects deploys; zero fields match everything.
type ListFilter struct {
	Tenant       string
	Application  string
	Environment  string
	States       []DeploymentState
	Requester    string
	CreatedAfter *time.Time
	// Active keeps the deploys running or waiting.
	Active bool
}

// maxPage is the page size asked for while paginating.
const maxPage = 100

// Deployments returns up to limit deploys matching f, newest first,
// following the cursor across pages; limit <= 0 reads every page.
func (c *Client) Deployments(ctx context.Context, f ListFilter, limit int) ([]DeploymentSummary, error) {
	var out []DeploymentSummary
	after := ""
	for {
		first := maxPage
		if limit > 0 && limit-len(out) < first {
			first = limit - len(out)
		}
		resp, err := ListDeployments(ctx, c.gql, f.Tenant, f.Application, f.Environment, f.States,
			f.Requester, f.CreatedAfter, f.Active, first, after)
		if err != nil {
			return nil, err
		}
		page := resp.Deployments
		for _, e := range page.Edges {
			out = append(out, e.Node)
		}
		if limit > 0 && len(out) >= limit {
			return out[:limit], nil
		}
		if !page.PageInfo.HasNextPage || page.PageInfo.EndCursor == "" || page.PageInfo.EndCursor == after {
			return out, nil
		}
		after = page.PageInfo.EndCursor
	}
}

// Activity returns the deploys running or waiting now (first <= 0: the
// server's default).
func (c *Client) Activity(ctx context.Context, first int) ([]DeploymentSummary, error) {
	resp, err := GetActivity(ctx, c.gql, first)
	if err != nil {
		return nil, err
	}
	return resp.Activity, nil
}

// Logs returns up to limit log lines of a deploy after sequence number
// after, and the sequence number to pass to read what follows.
func (c *Client) Logs(ctx context.Context, id string, after, limit int) (*GetLogsDeployment, error) {
	resp, err := GetLogs(ctx, c.gql, id, after, limit)
	if err != nil {
		return nil, err
	}
	if resp.Deployment == nil {
		return nil, notFound(id)
	}
	return resp.Deployment, nil
}

// Inventory returns the release in service of every readable application
// and environment.
func (c *Client) Inventory(ctx context.Context) ([]InventoryEntry, error) {
	resp, err := GetInventory(ctx, c.gql)
	if err != nil {
		return nil, err
	}
	return resp.Inventory, nil
}

// Viewer returns the identity the token stands for.
func (c *Client) Viewer(ctx context.Context) (*Viewer, error) {
	resp, err := GetViewer(ctx, c.gql)
	if err != nil {
		return nil, err
	}
	return &resp.Viewer, nil
}

// Submit submits a manent/v1 descriptor (YAML or JSON). With validateOnly
// the server runs every check and returns the plan and the effective deploy
// without storing anything. INVALID_DESCRIPTOR, UNAUTHENTICATED, FORBIDDEN,
// UNPROCESSABLE.
func (c *Client) Submit(ctx context.Context, descriptor []byte, validateOnly bool) (*SubmitResult, error) {
	resp, err := SubmitDeployment(ctx, c.gql, string(descriptor), validateOnly)
	if err != nil {
		return nil, err
	}
	return &resp.SubmitDeployment, nil
}

// Cancel cancels a deploy: at once when it has not started, at the start of
// its next step otherwise. NOT_FOUND, FORBIDDEN, CONFLICT (already ended).
func (c *Client) Cancel(ctx context.Context, id string) (*DeploymentDetail, error) {
	resp, err := CancelDeployment(ctx, c.gql, id)
	if err != nil {
		return nil, err
	}
	return &resp.CancelDeployment, nil
}

// Replayed is a callback delivery sent again.
type Replayed = ReplayCallbacksReplayCallbacksCallbackDelivery

// ReplayCallbacks sends the dead deliveries of a deploy's callbacks again
// (only deliveryID unless it is "", the disabled ones too when asked), with
// their webhook-id. NOT_FOUND, FORBIDDEN, UNPROCESSABLE (no callbacks),
// CONFLICT (nothing to replay).
func (c *Client) ReplayCallbacks(ctx context.Context, id, deliveryID string, includeDisabled bool) ([]Replayed, error) {
	resp, err := ReplayCallbacks(ctx, c.gql, id, deliveryID, includeDisabled)
	if err != nil {
		return nil, err
	}
	return resp.ReplayCallbacks, nil
}

// DoraQuery is the scope and range of DoraMetrics; zero fields take the
// server's defaults (any scope, the last 28 days, a 24 h failure window).
type DoraQuery struct {
	Tenant, Application, Environment string
	From, To                         *time.Time
	FailureWindowHours               int
}

// DoraMetrics returns the DORA metrics of the readable deploys of q's scope.
func (c *Client) DoraMetrics(ctx context.Context, q DoraQuery) (*DoraReport, error) {
	resp, err := GetDoraMetrics(ctx, c.gql, q.Tenant, q.Application, q.Environment, q.From, q.To, q.FailureWindowHours)
	if err != nil {
		return nil, err
	}
	return &resp.DoraMetrics, nil
}
