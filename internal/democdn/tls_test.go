package democdn

import (
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"manent.dev/manent/internal/safehttp"
)

// TestStart: the CDN serves over TLS with a certificate of the authority
// it wrote to its CA file: a client that trusts that file reaches it, one
// with the system's authorities alone is refused; it listens on loopback
// only.
func TestStart(t *testing.T) {
	caFile := filepath.Join(t.TempDir(), "demo-cdn", "ca.pem")
	cdn, err := Start("127.0.0.1:0", caFile, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cdn.Close() })
	certs, err := safehttp.ReadCAFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(certs) != 1 || !certs[0].Equal(cdn.CA()) || !certs[0].IsCA {
		t.Fatalf("the CA file holds %d certificates, want the CDN's authority", len(certs))
	}
	for _, tt := range []struct {
		name    string
		trusted bool
	}{
		{"trusting the CA file", true},
		{"with the system's authorities alone", false},
	} {
		o := safehttp.Options{RootCAs: safehttp.SystemRootsWith(nil)}
		if tt.trusted {
			o.RootCAs = safehttp.SystemRootsWith(certs)
		}
		req, err := http.NewRequest(http.MethodPost, cdn.URL()+"/zones/"+zone+"/purge", strings.NewReader(`{"tags": ["hello"]}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+Token)
		req.Header.Set("Idempotency-Key", "k")
		resp, err := safehttp.Do(safehttp.New(o), req, 1<<20)
		if err == nil {
			_ = resp.Body.Close()
		}
		switch {
		case tt.trusted && (err != nil || resp.StatusCode != http.StatusAccepted):
			t.Errorf("%s: %v, want 202", tt.name, err)
		case !tt.trusted && (err == nil || !strings.Contains(err.Error(), "certificate")):
			t.Errorf("%s: %v, want a certificate the client does not trust", tt.name, err)
		}
	}
	for _, listen := range []string{"0.0.0.0:0", "192.0.2.1:8443", "example.com:8443"} {
		if _, err := Start(listen, caFile, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("Start(%s): %v, want a refusal: loopback only", listen, err)
		}
	}
}
