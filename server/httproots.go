package server

import (
	"crypto/x509"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/internal/safehttp"
)

// httpStepRoots are the certificate authorities HTTP steps trust: the
// system's, with those of pipeline.custom.ca_file and extra (the demo
// CDN's, in dev). Nil when neither adds one: HTTP steps then trust what
// the other steps do. A ca_file that cannot be read, or that holds
// anything but certificates, stops the start.
func httpStepRoots(cfg *config.Config, extra []*x509.Certificate, log *slog.Logger) (*x509.CertPool, error) {
	certs := slices.Clone(extra)
	if path := cfg.Pipeline.Custom.CAFile; path != "" {
		read, err := safehttp.ReadCAFile(path)
		if err != nil {
			return nil, fmt.Errorf("pipeline.custom.ca_file: %w", err)
		}
		now := time.Now()
		for i, c := range read {
			// An expired authority vouches for nothing: say so now rather
			// than when a step fails on it.
			if now.After(c.NotAfter) {
				log.Warn("pipeline.custom.ca_file: a certificate has expired: HTTP steps cannot rely on it",
					"file", path, "certificate", i+1, "subject", c.Subject.String(), "not_after", c.NotAfter)
			}
		}
		certs = append(certs, read...)
	}
	if len(certs) == 0 {
		return nil, nil
	}
	return safehttp.SystemRootsWith(certs), nil
}
