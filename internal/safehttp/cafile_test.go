package safehttp

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadCAFile(t *testing.T) {
	a := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer a.Close()
	b := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	b.StartTLS()
	defer b.Close()
	certA := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: a.Certificate().Raw}))
	certB := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: b.Certificate().Raw}))
	key := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("not shown")}))
	dir := t.TempDir()
	tests := []struct {
		name, body string
		certs      int
		err        string
	}{
		{name: "one certificate", body: certA, certs: 1},
		{name: "a bundle with comments between", body: "# Issuer: a\n" + certA + "\n# Issuer: b\n" + certB, certs: 2},
		{name: "a private key", body: certA + key, err: "block 2 is a PRIVATE KEY: a CA file holds certificates only"},
		{name: "another kind of block", body: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: []byte{1}})),
			err: "block 1 is a CERTIFICATE REQUEST, not a CERTIFICATE"},
		{name: "a certificate that does not parse", body: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("junk")})),
			err: "block 1 is not a certificate that parses"},
		{name: "a block cut short", body: certA + certB[:len(certB)/2], err: "block 2 is not a PEM block that ends"},
		{name: "no PEM at all", body: "hunter2-not-a-certificate\n", err: "no certificate in it"},
		{name: "empty", body: "", err: "no certificate in it"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, string(rune('a'+i))+".pem")
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			certs, err := ReadCAFile(path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), path) {
					t.Fatalf("err = %v, want the path and %q", err, tt.err)
				}
				if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "not shown") {
					t.Errorf("the error shows the file's content: %v", err)
				}
				return
			}
			if err != nil || len(certs) != tt.certs {
				t.Fatalf("%d certificates, %v; want %d", len(certs), err, tt.certs)
			}
		})
	}
	for _, path := range []string{filepath.Join(dir, "missing.pem"), dir} {
		if _, err := ReadCAFile(path); err == nil {
			t.Errorf("ReadCAFile(%s) read it", path)
		}
	}
}

// TestSystemRootsWith: a server whose certificate only the CA file vouches
// for is trusted with it and refused without it.
func TestSystemRootsWith(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	certs, err := ReadCAFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		roots   *Options
		trusted bool
	}{
		{"the system's roots alone", &Options{RootCAs: SystemRootsWith(nil)}, false},
		{"with the CA file", &Options{RootCAs: SystemRootsWith(certs)}, true},
	} {
		resp, err := Get(context.Background(), New(*tt.roots), srv.URL, 10)
		if err == nil {
			_ = resp.Body.Close()
		}
		if got := err == nil; got != tt.trusted {
			t.Errorf("%s: trusted %v (%v), want %v", tt.name, got, err, tt.trusted)
		}
	}
}
