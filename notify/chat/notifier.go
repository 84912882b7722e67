package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/safehttp"
)

// Resolve reads a secret reference (env:, file:); the server's secret
// providers implement it.
type Resolve func(ctx context.Context, ref string) (string, error)

// Options are what New needs beside the configuration.
type Options struct {
	// Resolve reads webhook_ref and signing_secret_ref, at every use so
	// that a rotated secret is taken without a restart.
	Resolve Resolve
	// PublicURL is server.public_url: the origin of the links to deploys.
	PublicURL string
	// Dev lets every webhook be http:// (manent-server dev and the demo).
	Dev bool
	// Client posts the messages; New makes one with safehttp's rules.
	Client *http.Client
	// Timeout bounds one post (default 10s).
	Timeout time.Duration
	// Now is the clock of the signatures' window (default time.Now).
	Now func() time.Time
	// ResponseURLPrefix is where the answers to clicks may be posted
	// (default DefaultResponseURLPrefix, Slack's).
	ResponseURLPrefix string
}

// DefaultResponseURLPrefix is where Slack's response URLs live.
const DefaultResponseURLPrefix = "https://hooks.slack.com/"

// Notifier is the chat side of manent: the messages of the targets of
// notifications.chat and the answers to their buttons.
type Notifier struct {
	targets []target
	opts    Options
	// pending counts the answers being posted to response URLs.
	pending sync.WaitGroup
}

type target struct {
	config.ChatTarget
	// identities are the users' mapping, with their groups.
	identities []mappedUser
}

type mappedUser struct {
	slack, team string
	identity    deploy.Identity
}

// maxResponse bounds what a webhook's answer is read of: "ok", or an error.
const maxResponse = 64 << 10

// New builds the notifier of cfg's notifications.chat; nil when there is
// no target. A user mapped to a token identity without groups gets the
// token's, so that an approval from the chat is judged as one from the CLI.
func New(cfg *config.Config, o Options) *Notifier {
	if len(cfg.Notifications.Chat) == 0 {
		return nil
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Client == nil {
		o.Client = safehttp.New(safehttp.Options{Timeout: o.Timeout})
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ResponseURLPrefix == "" {
		o.ResponseURLPrefix = DefaultResponseURLPrefix
	}
	groups := map[string][]string{}
	for _, t := range cfg.Auth.Tokens {
		groups["token:"+t.Name] = t.Groups
	}
	n := &Notifier{opts: o}
	for _, t := range cfg.Notifications.Chat {
		tg := target{ChatTarget: t}
		for _, u := range t.Users {
			g := u.Groups
			if len(g) == 0 {
				g = groups[u.Identity]
			}
			tg.identities = append(tg.identities, mappedUser{slack: u.Slack, team: u.Team,
				identity: deploy.Identity{Subject: u.Identity, Groups: g}})
		}
		n.targets = append(n.targets, tg)
	}
	return n
}

// Wants lists the targets (their config.ChatTarget.Key) that want ev for d.
func (n *Notifier) Wants(ev Event, d *deploy.Deployment) []string {
	if n == nil || d == nil {
		return nil
	}
	k := kind(ev, deploy.NewStatus(d))
	if k == "" {
		return nil
	}
	var out []string
	for _, t := range n.targets {
		if t.Wants(k, d.Tenant, d.Application, d.Environment) {
			out = append(out, t.Key())
		}
	}
	return out
}

// target finds the target of key in the configuration now.
func (n *Notifier) target(key string) (target, bool) {
	if n == nil {
		return target{}, false
	}
	for _, t := range n.targets {
		if t.Key() == key {
			return t, true
		}
	}
	return target{}, false
}

// Send posts ev's message to the target of key once. The target is looked
// up again, and must still want ev for the deploy of st: the engine chose
// it when the event happened, and the message may go out after a reload
// (a retry, a backlog, a recovery), when the target is gone or speaks of
// other deploys; the message is then dropped, permanently. A refusal that
// a retry cannot change (a bad reference, a URL the rules refuse, a 4xx
// other than 429) is deploy.Permanent; a network error, a 429 or a 5xx is
// worth a retry. No error names the webhook's URL: it is the secret that
// lets anyone post to the channel. link is the deploy's page; "" takes
// DeployLink's.
func (n *Notifier) Send(ctx context.Context, key string, ev Event, st deploy.Status, link string) error {
	t, ok := n.target(key)
	if !ok {
		return deploy.Permanentf("chat target %s is no longer in notifications.chat: the message is dropped", key)
	}
	k := kind(ev, st)
	if k == "" {
		return nil
	}
	if !t.Wants(k, st.Tenant, st.Application, st.Environment) {
		return deploy.Permanentf("chat target %s no longer wants %s messages of %s/%s in %s: the message is dropped",
			key, k, st.Tenant, st.Application, st.Environment)
	}
	if link == "" {
		link = DeployLink(n.opts.PublicURL, st.ID)
	}
	msg, ok := Compose(ev, st, link)
	if !ok {
		return nil
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	// Slack's own escaping is the message's (escape): JSON's of <, > and &
	// would only make it longer.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		return deploy.Permanent(fmt.Errorf("chat target %s: encode the message: %w", key, err))
	}
	raw, err := n.opts.Resolve(ctx, t.WebhookRef)
	if err != nil {
		// The providers' errors name the reference, which is no secret to
		// the operator reading the engine's log, never its value.
		return fmt.Errorf("chat target %s: webhook_ref: %w", key, err)
	}
	u, err := n.webhookURL(raw, t.AllowHTTP)
	if err != nil {
		return deploy.Permanent(fmt.Errorf("chat target %s: webhook_ref: %w", key, err))
	}
	ctx, cancel := context.WithTimeout(ctx, n.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), &body)
	if err != nil {
		return deploy.Permanentf("chat target %s: the webhook URL cannot be requested", key)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := safehttp.Do(n.opts.Client, req, maxResponse)
	var redirect *safehttp.RedirectError
	if errors.As(err, &redirect) {
		// Its error quotes the URL's path, which is the secret here.
		return deploy.Permanentf("chat target %s: the webhook answered %d, a redirect manent never follows", key, redirect.Status)
	}
	if err != nil {
		return fmt.Errorf("chat target %s: post the message: %w", key, withoutURL(err))
	}
	defer func() { _ = resp.Body.Close() }() // read to the limit below; nothing is lost
	_, _ = io.Copy(io.Discard, resp.Body)
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return nil
	case c == http.StatusTooManyRequests || c >= 500:
		return fmt.Errorf("chat target %s: the webhook answered %d", key, c)
	default:
		return deploy.Permanentf("chat target %s: the webhook answered %d", key, c)
	}
}

// webhookURL checks the resolved webhook against the outbound rules:
// https, or http when allowed; no credentials in it. Errors never quote it.
func (n *Notifier) webhookURL(raw string, allowHTTP bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return nil, errors.New("the secret is not an absolute URL")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && (allowHTTP || n.opts.Dev):
	case u.Scheme == "http":
		return nil, errors.New("the webhook must be https:// (allow_http lets it be http://)")
	default:
		return nil, errors.New("the webhook must be an https:// URL")
	}
	if u.User != nil {
		return nil, errors.New("the webhook URL must not hold credentials")
	}
	return u, nil
}

// withoutURL drops the URL net/http puts in its errors: the webhook's is a
// secret. Timeouts stay timeouts.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
