package server

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/internal/democdn"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/safehttp"
)

// lockedBuffer is a log both the test and the server write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestDemoCDN: with Config.DemoCDN (manent-server dev), the server serves
// the demo CDN over TLS and writes its certificate authority under the
// data directory, where a client finds what to trust; when the CDN's
// address is taken, the server starts all the same and its log says what
// to do.
func TestDemoCDN(t *testing.T) {
	configPath, _ := demoConfig(t)
	t.Setenv("DATABASE_URL", pgtest.URL(t))
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = taken.Close() }()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freeAddr := free.Addr().String()
	_ = free.Close() // the CDN is about to listen on it

	for _, tt := range []struct {
		name, listen string
		serves       bool
	}{
		{"a free address", freeAddr, true},
		{"an address taken", taken.Addr().String(), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dataDir := t.TempDir()
			var log lockedBuffer
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			srv, err := Main(ctx, Config{ConfigPath: configPath, Listen: "127.0.0.1:0", DataDir: dataDir,
				DemoCDN: tt.listen, Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if err != nil {
				t.Fatalf("the server did not start: %v", err)
			}
			defer func() { _ = srv.Close() }()
			if !tt.serves {
				if !strings.Contains(log.String(), "the demo CDN is not served") || !strings.Contains(log.String(), "--demo-cdn-listen") {
					t.Errorf("the log does not say the CDN is not served, and what to do:\n%s", log.String())
				}
				return
			}
			certs, err := safehttp.ReadCAFile(filepath.Join(dataDir, "demo-cdn", "ca.pem"))
			if err != nil {
				t.Fatal(err)
			}
			req, err := http.NewRequest(http.MethodGet, "https://"+tt.listen+"/purges/purge-none", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+democdn.Token)
			resp, err := safehttp.Do(safehttp.New(safehttp.Options{RootCAs: safehttp.SystemRootsWith(certs)}), req, 1<<20)
			if err != nil {
				t.Fatalf("the CDN, trusting the CA file: %v", err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("GET an unknown purge: %d, want 404", resp.StatusCode)
			}
		})
	}
}
