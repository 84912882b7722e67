package safehttp

import (
	"context"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCheckAddress(t *testing.T) {
	tests := []struct {
		addr    string
		refused bool
	}{
		{"127.0.0.1:80", false},
		{"[::1]:443", false},
		{"10.1.2.3:80", false},
		{"169.254.169.254:80", true},
		{"[fe80::1]:80", true},
		{"[fd00:ec2::254]:80", true},
		{"0.0.0.0:80", true},
		{"[::ffff:169.254.169.254]:80", true},
		{"169.254.0.23:80", true},    // Tencent Cloud
		{"100.100.100.200:80", true}, // Alibaba Cloud
		{"168.63.129.16:80", true},   // Azure WireServer
		{"192.0.0.192:80", true},     // Oracle Cloud
		{"[::ffff:100.100.100.200]:80", true},
		{"[::ffff:168.63.129.16]:80", true},
		{"100.100.100.201:80", false}, // the shared address space otherwise
		{"168.63.129.17:80", false},
		{"192.0.0.193:80", false},
	}
	for _, tt := range tests {
		err := checkAddress(tt.addr)
		if got := errors.Is(err, ErrAddressRefused); got != tt.refused {
			t.Errorf("checkAddress(%s) refused=%v, want %v (%v)", tt.addr, got, tt.refused, err)
		}
	}
}

func TestGetRefusesRedirectsAndCapsSize(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "/big", http.StatusFound)
		case "/big":
			_, _ = io.WriteString(w, strings.Repeat("x", 100))
		}
	}))
	defer srv.Close()
	c := New(Options{})
	resp, err := Get(context.Background(), c, srv.URL+"/redirect", 1000)
	if err == nil {
		_ = resp.Body.Close()
	}
	if !errors.Is(err, ErrRedirect) {
		t.Fatalf("redirect: got %v, want ErrRedirect", err)
	}
	var re *RedirectError
	if !errors.As(err, &re) || re.Status != http.StatusFound || re.URL != srv.URL+"/redirect" {
		t.Fatalf("redirect: got %#v, want a RedirectError with status 302 and the URL", err)
	}
	resp, err = Get(context.Background(), c, srv.URL+"/big", 10)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("big body: got %v, want ErrTooLarge", err)
	}
	resp, err = Get(context.Background(), c, srv.URL+"/big", 100)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, err := io.ReadAll(resp.Body); err != nil || len(b) != 100 {
		t.Fatalf("exact body: %d bytes, %v", len(b), err)
	}
}

// TestDoTrustsRootCAsAndRefusesRedirects: a client with RootCAs talks to a
// TLS server whose certificate they hold, and Do refuses a redirect of a
// POST even through a client that would follow it.
func TestDoTrustsRootCAsAndRefusesRedirects(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/there", http.StatusTemporaryRedirect)
			return
		}
		_, _ = io.WriteString(w, r.Method+" "+r.Header.Get("User-Agent"))
	}))
	defer srv.Close()
	if resp, err := Get(context.Background(), New(Options{}), srv.URL, 100); err == nil {
		_ = resp.Body.Close()
		t.Fatal("the system roots trusted the test server's certificate")
	}
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	c := New(Options{RootCAs: pool})
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL+"/ok", strings.NewReader("{}"))
	resp, err := Do(c, req, 100)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(b) != "POST manent" {
		t.Fatalf("answer %q", b)
	}
	following := &http.Client{Transport: c.Transport}
	req, _ = http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL+"/moved?token=x", strings.NewReader("{}"))
	resp, err = Do(following, req, 100)
	if err == nil {
		_ = resp.Body.Close()
	}
	var re *RedirectError
	if !errors.As(err, &re) || re.Status != http.StatusTemporaryRedirect || strings.Contains(re.URL, "token") {
		t.Fatalf("redirect: %v", err)
	}
}
