package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/internal/pgtest"
)

// TestDefaultWorkDirIsTheInstallations: a manent.yml without
// server.work_dir puts the deploys' working directories under the
// server's data directory, private to its user, and deploys run there.
func TestDefaultWorkDirIsTheInstallations(t *testing.T) {
	configPath, _ := demoConfig(t)
	b, err := os.ReadFile(configPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(configPath, []byte(strings.Replace(string(b), "  work_dir: work\n", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DATABASE_URL", pgtest.URL(t))
	dataDir := filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	log := slog.New(slog.NewTextHandler(&testLog{t: t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := Main(ctx, Config{ConfigPath: configPath, Listen: "127.0.0.1:0", Logger: log, Role: RoleAll, DataDir: dataDir})
	if err != nil {
		t.Fatalf("server.Main: %v", err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(runCtx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	info, err := os.Stat(filepath.Join(dataDir, "work"))
	if err != nil {
		t.Fatalf("no working directory under the data directory: %v", err)
	}
	if !info.IsDir() || info.Mode().Perm() != 0o700 {
		t.Errorf("working directory %s, want a directory 0700", info.Mode())
	}
	base := srv.URL() + "/api/v1/deployments"
	if resp, body := request(t, "POST", base, demoTokens["ci"], fmt.Sprintf(helloDescriptor, "hello-wd-1")); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: %d %s", resp.StatusCode, body)
	}
	if states := followSSE(t, base+"/hello-wd-1/events", demoTokens["ci"]); len(states) == 0 || states[len(states)-1] != "SUCCESS" {
		t.Fatalf("SSE states = %v, want to end with SUCCESS", states)
	}
}

func TestPrepareWorkDir(t *testing.T) {
	tests := []struct {
		name string
		// existing is the mode of a directory already there, 0 for none.
		existing os.FileMode
		own      bool
		want     os.FileMode
	}{
		{name: "created", own: true, want: 0o700},
		{name: "created where manent.yml says", want: 0o700},
		{name: "the installation's, made private again", existing: 0o755, own: true, want: 0o700},
		{name: "manent.yml's, left as its operator made it", existing: 0o750, want: 0o750},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data", "work")
			if tt.existing != 0 {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(dir, tt.existing); err != nil {
					t.Fatal(err)
				}
			}
			if err := prepareWorkDir(dir, tt.own); err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(dir)
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != tt.want {
				t.Errorf("mode %s, want %s", info.Mode().Perm(), tt.want)
			}
		})
	}
}
