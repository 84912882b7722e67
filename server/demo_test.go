package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoFleetHandler: the demo's fleet check counts the targets that
// serve a release and fails once more of them lack index.html than
// max_failing tolerates; a target with nothing deployed is not counted.
func TestDemoFleetHandler(t *testing.T) {
	dir := t.TempDir()
	release := func(target, version string, page bool) {
		t.Helper()
		rel := filepath.Join(dir, "hello/fleet", target, "releases", version)
		if err := os.MkdirAll(rel, 0o755); err != nil {
			t.Fatal(err)
		}
		if page {
			if err := os.WriteFile(filepath.Join(rel, "index.html"), []byte("hello"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink("releases/"+version, filepath.Join(dir, "hello/fleet", target, "current")); err != nil {
			t.Fatal(err)
		}
	}
	release("eu-1", "1.1.0", false)
	release("eu-2", "1.0.0", true)
	release("eu-3", "1.1.0", false)
	if err := os.MkdirAll(filepath.Join(dir, "hello/fleet/ap-4"), 0o755); err != nil { // never deployed
		t.Fatal(err)
	}
	h := demoFleetHandler(dir)
	tests := []struct {
		url    string
		status int
		body   string
	}{
		{"/demo-fleet/hello/fleet", http.StatusServiceUnavailable, "2 of 3 serving targets fail (at most 0 tolerated): eu-1, eu-3"},
		{"/demo-fleet/hello/fleet?max_failing=1", http.StatusServiceUnavailable, "2 of 3"},
		{"/demo-fleet/hello/fleet?max_failing=2", http.StatusOK, "2 of 3"},
		{"/demo-fleet/hello/fleet?max_failing=-1", http.StatusBadRequest, "max_failing"},
		{"/demo-fleet/hello/nowhere", http.StatusNotFound, ""},
	}
	mux := http.NewServeMux()
	mux.Handle("GET /demo-fleet/{path...}", h)
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.url, nil))
			body, _ := io.ReadAll(rec.Body)
			if rec.Code != tt.status || !strings.Contains(string(body), tt.body) {
				t.Errorf("%s: %d %q, want %d with %q", tt.url, rec.Code, body, tt.status, tt.body)
			}
		})
	}
}
