package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/config"
)

// TestCAFileChecksAtStartUp: a pipeline.custom.ca_file that is missing or
// holds anything but certificates stops the server before it opens its
// database, with an error that names the key, the file and the reason,
// never the file's content.
func TestCAFileChecksAtStartUp(t *testing.T) {
	// A database that is not there: an error about it would mean the
	// check came too late.
	t.Setenv("DATABASE_URL", "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	key := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("k3y-material-not-shown")}))
	tests := []struct {
		name, file string // file "" is no file at all
		says       string
	}{
		{"a file that is not there", "", "no such file"},
		{"a private key", key, "block 1 is a PRIVATE KEY"},
		{"no certificate", "k3y-material-not-shown\n", "no certificate in it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.file != "" {
				write(t, filepath.Join(dir, "company-ca.pem"), tt.file)
			}
			write(t, filepath.Join(dir, "manent.yml"), "pipeline:\n  custom: {ca_file: company-ca.pem}\n")
			srv, err := Main(context.Background(), Config{ConfigPath: filepath.Join(dir, "manent.yml"),
				Listen: "127.0.0.1:0", DataDir: filepath.Join(dir, ".manent"), Logger: slog.New(slog.DiscardHandler)})
			if err == nil {
				_ = srv.Close()
				t.Fatal("the server started")
			}
			msg := err.Error()
			if !strings.Contains(msg, "pipeline.custom.ca_file") || !strings.Contains(msg, filepath.Join(dir, "company-ca.pem")) ||
				!strings.Contains(msg, tt.says) {
				t.Errorf("error %q, want the key, the file and %q", msg, tt.says)
			}
			if strings.Contains(msg, "k3y-material") || strings.Contains(msg, "127.0.0.1:1") {
				t.Errorf("error %q shows the file's content or comes from the database", msg)
			}
		})
	}
}

// TestHTTPStepRoots: the authorities of ca_file and the extra ones (the
// demo CDN's) are trusted besides the system's; without either, HTTP steps
// are left with the client of the other steps.
func TestHTTPStepRoots(t *testing.T) {
	api := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer api.Close()
	// httptest's servers share one certificate: the demo's is another.
	demoCA := selfSigned(t)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "ca.pem"), string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.Certificate().Raw})))
	log := slog.New(slog.DiscardHandler)
	trusts := func(pool *x509.CertPool, c *x509.Certificate) bool {
		_, err := c.Verify(x509.VerifyOptions{Roots: pool})
		return err == nil
	}
	none, err := config.Parse([]byte("server: {listen: 127.0.0.1:8080}\n"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if pool, err := httpStepRoots(none, nil, log); pool != nil || err != nil {
		t.Errorf("without ca_file: %v, %v; want nil", pool, err)
	}
	withFile, err := config.Parse([]byte("pipeline:\n  custom: {ca_file: ca.pem}\n"), dir)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := httpStepRoots(withFile, []*x509.Certificate{demoCA}, log)
	if err != nil {
		t.Fatal(err)
	}
	if !trusts(pool, api.Certificate()) || !trusts(pool, demoCA) {
		t.Errorf("the pool trusts ca_file's %v and the demo's %v, want both", trusts(pool, api.Certificate()), trusts(pool, demoCA))
	}
	if pool, err := httpStepRoots(none, []*x509.Certificate{demoCA}, log); err != nil || !trusts(pool, demoCA) ||
		trusts(pool, api.Certificate()) {
		t.Errorf("the demo's alone: %v", err)
	}
}

// selfSigned is a certificate authority of its own.
func selfSigned(t *testing.T) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
