package engine_test

import (
	"crypto/x509"
	"io"
	"net/http"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/safehttp"
)

// TestHTTPStepTrustsTheServersAuthorities: once the server gives HTTP
// steps their certificate authorities (the system's and those of
// pipeline.custom.ca_file), those are what they trust: an API whose
// certificate only they vouch for answers the step, and an API they do not
// vouch for fails it at once, permanently, even when the authorities of
// the other steps (downloads, health checks) would.
func TestHTTPStepTrustsTheServersAuthorities(t *testing.T) {
	h := newHookServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		_, _ = io.WriteString(w, `{"ok": true}`)
	})
	hook := `{name: hook, mode: mandatory, type: http, max_retries: 2, secrets: [cdn-token], ` +
		`params: {zone: {pattern: "[a-z0-9]+"}}, run: {url: "` + h.URL + `/hook", auth: {type: bearer, secret: cdn-token}}}`
	tests := []struct {
		name      string
		o         envOptions
		state     deploy.State
		errorText string
	}{
		{name: "the API's CA among them", o: envOptions{httpStepRoots: safehttp.SystemRootsWith([]*x509.Certificate{h.Certificate()})},
			state: deploy.StateSuccess},
		{name: "the API's CA only among the other steps'", o: envOptions{rootCAs: h.roots(), httpStepRoots: safehttp.SystemRootsWith(nil)},
			state: deploy.StateError, errorText: "certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := httpStepEnvWith(t, hook, tt.o)
			e.submit("ca-1", "app", "prod")
			d := e.waitState("ca-1", tt.state)
			s := step(d, "hook")
			if tt.errorText == "" {
				if s.State != deploy.StepSuccess || s.Attempts != 1 {
					t.Fatalf("hook %+v", s)
				}
				return
			}
			if s.State != deploy.StepError || s.Attempts != 1 || !strings.Contains(s.Error, tt.errorText) {
				t.Fatalf("hook %+v, want one attempt that failed on the certificate", s)
			}
		})
	}
}
