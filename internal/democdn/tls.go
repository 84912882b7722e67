package democdn

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// validity is how long the certificates of a start last: they are made
// again at every start.
const validity = 90 * 24 * time.Hour

// A CDN is the demo CDN, serving.
type CDN struct {
	ca  *x509.Certificate
	srv *http.Server
	ln  net.Listener
}

// Start makes a certificate authority and, signed by it, a certificate for
// the loopback names (localhost, 127.0.0.1, ::1), writes the authority to
// caFile (PEM) for clients to trust, and serves the purge API over TLS on
// listen, a loopback address. The authority's key never leaves the
// process.
func Start(listen, caFile string, log *slog.Logger) (*CDN, error) {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("demo CDN: listen address %q: %w", listen, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("demo CDN: listen address %q: a loopback address only (127.0.0.1, ::1, localhost)", listen)
	}
	ca, leaf, err := certificates(time.Now())
	if err != nil {
		return nil, fmt.Errorf("demo CDN: %w", err)
	}
	if err := writeCA(caFile, ca); err != nil {
		return nil, fmt.Errorf("demo CDN: %w", err)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("demo CDN: %w", err)
	}
	c := &CDN{ca: ca, ln: ln, srv: &http.Server{
		Handler:           Handler(log),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}}
	tl := tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{leaf}, MinVersion: tls.VersionTLS12})
	go func() {
		if err := c.srv.Serve(tl); !errors.Is(err, http.ErrServerClosed) {
			log.Warn("demo CDN stopped", "error", err)
		}
	}()
	return c, nil
}

// CA is the certificate authority of the CDN's certificate.
func (c *CDN) CA() *x509.Certificate { return c.ca }

// URL is the CDN's base URL.
func (c *CDN) URL() string { return "https://" + c.ln.Addr().String() }

// Close stops serving.
func (c *CDN) Close() error { return c.srv.Close() }

// certificates makes the authority and the server's certificate, with
// its chain.
func certificates(now time.Time) (*x509.Certificate, tls.Certificate, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	caSerial, err := serial()
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	leafSerial, err := serial()
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber: caSerial, Subject: pkix.Name{CommonName: "manent demo CDN CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(validity),
		IsCA: true, BasicConstraintsValid: true, MaxPathLenZero: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, tls.Certificate{}, fmt.Errorf("make the certificate authority: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: leafSerial, Subject: pkix.Name{CommonName: "manent demo CDN"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(validity),
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, tls.Certificate{}, fmt.Errorf("make the server's certificate: %w", err)
	}
	return ca, tls.Certificate{Certificate: [][]byte{der, caDER}, PrivateKey: key}, nil
}

// serial is a random serial number of 127 bits, as RFC 5280 asks.
func serial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

// writeCA writes the authority to path, whole or not at all: a client
// never reads half a certificate.
func writeCA(path string, ca *x509.Certificate) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write the certificate authority: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ca-*.pem")
	if err != nil {
		return fmt.Errorf("write the certificate authority: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // gone once renamed
	err = pem.Encode(tmp, &pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw})
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write the certificate authority %s: %w", path, err)
	}
	return nil
}
