package login

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"time"

	"golang.org/x/oauth2"
)

// callbackPath is the path of the loopback redirect URI.
const callbackPath = "/callback"

// AuthCode signs in with the authorization code flow and PKCE (S256) on a
// loopback callback (RFC 8252 §7.3): it listens on 127.0.0.1 on a free
// port, shows the authorization URL, and takes the code the browser
// brings back there, once, with the state it sent; the ID token must
// carry the nonce it sent. It waits until ctx ends.
func (p *Provider) AuthCode(ctx context.Context, f Flow) (*Tokens, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the sign-in's callback: %w", err)
	}
	defer func() { _ = ln.Close() }()
	cfg := p.oauth2Config(fmt.Sprintf("http://%s%s", ln.Addr().String(), callbackPath))
	state, nonce, verifier := rand.Text(), rand.Text(), oauth2.GenerateVerifier()
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("nonce", nonce))

	type result struct {
		code string
		err  error
	}
	done := make(chan result, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+callbackPath, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		// Anything without this sign-in's state is not its answer (another
		// page of the machine calling the port): it is ignored, and the
		// flow goes on waiting.
		if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
			http.Error(w, "This is not the answer to the sign-in of manent login.", http.StatusBadRequest)
			return
		}
		var res result
		switch {
		case q.Get("error") == "access_denied":
			res.err = ErrDenied
		case q.Get("error") != "":
			res.err = p.refusal(&oauthError{Code: q.Get("error"), Description: q.Get("error_description")})
		case q.Get("code") == "":
			res.err = &ProviderError{Issuer: p.settings.Issuer, Err: errors.New("the callback holds no code")}
		default:
			res.code = q.Get("code")
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		msg := "Signed in: go back to your terminal."
		if res.err != nil {
			msg = "The sign-in failed: " + res.err.Error()
		}
		_, _ = fmt.Fprintf(w, "<!doctype html><title>manent login</title><p>%s</p>\n", html.EscapeString(msg))
		select {
		case done <- res:
		default: // a second answer with the state: the first one counts
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()

	if f.Prompt != nil {
		if err := f.Prompt(Prompt{URL: authURL}); err != nil {
			return nil, err
		}
	}
	var res result
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case res = <-done:
	}
	if res.err != nil {
		return nil, res.err
	}
	t, err := cfg.Exchange(p.context(ctx), res.code, oauth2.VerifierOption(verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return nil, p.refusal(&oauthError{Code: re.ErrorCode, Description: re.ErrorDescription})
		}
		return nil, &ProviderError{Issuer: p.settings.Issuer, Err: err}
	}
	return p.tokens(ctx, t, nonce, nil)
}
