package safehttp

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
)

// maxCAFile bounds a CA bundle: the system's whole bundle is about 200 KiB.
const maxCAFile = 4 << 20

// ReadCAFile reads a PEM bundle of certificate authorities. Every block
// must be a certificate that parses: a private key, a block of another
// kind, a block cut short or a file without any certificate is refused
// rather than skipped, since a CA left out silently is found only when a
// request fails. Text between blocks is allowed, as in the system's
// bundles. The error says which block and why, never the file's content.
func ReadCAFile(path string) ([]*x509.Certificate, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if info.Size() > maxCAFile {
		return nil, fmt.Errorf("%s: %d bytes, more than a CA bundle holds (at most %d)", path, info.Size(), maxCAFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	certs, err := parseCABundle(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return certs, nil
}

func parseCABundle(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	rest := data
	for n := 1; ; n++ {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		switch block.Type {
		case "CERTIFICATE":
		case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
			return nil, fmt.Errorf("block %d is a %s: a CA file holds certificates only, keep the key elsewhere", n, block.Type)
		default:
			return nil, fmt.Errorf("block %d is a %s, not a CERTIFICATE", n, block.Type)
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("block %d is not a certificate that parses: %w", n, err)
		}
		certs = append(certs, cert)
	}
	// Text between blocks is skipped, as in the system's bundles; a block
	// that does not end is not.
	if bytes.Contains(rest, []byte("-----BEGIN")) {
		return nil, fmt.Errorf("block %d is not a PEM block that ends (-----END missing, or cut)", len(certs)+1)
	}
	if len(certs) == 0 {
		return nil, errors.New("no certificate in it: a CA file is a bundle of -----BEGIN CERTIFICATE----- blocks")
	}
	return certs, nil
}

// SystemRootsWith is the system's certificate authorities (SSL_CERT_FILE
// and SSL_CERT_DIR included) with certs added; certs alone where the
// system has none.
func SystemRootsWith(certs []*x509.Certificate) *x509.CertPool {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool
}
