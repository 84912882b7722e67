package login_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"manent.dev/manent/internal/oidc/login"
)

// failingTransport fails the test on any request: a refused issuer is
// refused before anything is fetched from it.
type failingTransport struct{ t *testing.T }

func (f failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.t.Errorf("fetched %s", r.URL)
	return nil, errors.New("no network in this test")
}

// The CLI does not take the server's word for the issuer: plain http is
// refused but on this machine.
func TestCheckIssuer(t *testing.T) {
	for _, c := range []struct {
		issuer string
		ok     bool
	}{
		{"https://login.example.com/realms/main", true},
		{"http://127.0.0.1:8081", true},
		{"http://[::1]:8081/x", true},
		{"http://localhost:8081", true},
		{"http://login.example.com/realms/main", false},
		{"http://127.0.0.1.example.com", false},
		{"ftp://login.example.com", false},
		{"login.example.com", false},
	} {
		err := login.CheckIssuer(c.issuer)
		if (err == nil) != c.ok {
			t.Errorf("CheckIssuer(%q) = %v, want ok %v", c.issuer, err, c.ok)
		}
		if c.ok {
			continue
		}
		_, err = login.Discover(context.Background(), login.Settings{Issuer: c.issuer, ClientID: "manent"},
			&http.Client{Transport: failingTransport{t}}, nil)
		if err == nil {
			t.Errorf("Discover(%q) succeeded", c.issuer)
		}
	}
	var ie *login.InsecureIssuerError
	if err := login.CheckIssuer("http://login.example.com"); !errors.As(err, &ie) {
		t.Errorf("err = %v, want an InsecureIssuerError", err)
	}
}
