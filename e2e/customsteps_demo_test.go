package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"manent.dev/manent/internal/democdn"
	"manent.dev/manent/internal/safehttp"
)

// TestDemoPurge is the HTTP step of the walk-through of
// docs/custom-steps.md on a copy of examples/, with the real binaries:
// manent-server dev serves the demo CDN over TLS; manent validate shows
// cdn-purge's type and spec_hash, never its URL; manent deploy -f
// examples/deploys/hello-purge.yml follows the deploy to SUCCESS, the
// purge started, polled until done and its purge_id in the status; the
// log names each request by method, host and path and never shows the
// token; the CDN's certificate authority, written where the walk-through
// says, vouches for the CDN.
func TestDemoPurge(t *testing.T) {
	serverBin, cliBin := binaries(t)
	dir := t.TempDir()
	copyTree(t, filepath.Join(repoRoot(), "examples"), filepath.Join(dir, "examples"))
	port, cdnPort := freePort(t), freePort(t)
	cdn := fmt.Sprintf("127.0.0.1:%d", cdnPort)
	// The demo's addresses are its defaults: this test's instead.
	edit(t, filepath.Join(dir, "examples/manent.yml"), "https://127.0.0.1:8443/", "https://"+cdn+"/", 2)
	edit(t, filepath.Join(dir, "examples/envconfig/demo/hello/staging.yml"), "127.0.0.1:8080", fmt.Sprintf("127.0.0.1:%d", port), 2)
	url := startDev(t, serverBin, dir, port, "--demo-cdn-listen", cdn)
	desc := filepath.Join(dir, "examples/deploys/hello-purge.yml")
	token, err := os.ReadFile(filepath.Join(dir, "examples/secrets/cdn-token"))
	if err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimSpace(string(token))
	if secret != democdn.Token {
		t.Fatalf("examples/secrets/cdn-token holds another token than the demo CDN's: the step would be refused")
	}
	// What no reader may see of the step: its URLs and its token.
	hidden := []string{cdn, "/zones/", "/purges", secret, base64.StdEncoding.EncodeToString([]byte(secret))}

	t.Run("validate shows the type and spec_hash, never the URL", func(t *testing.T) {
		stdout, stderr, code := cli(t, cliBin, url, "demo-ci", "validate", "-f", desc, "-o", "json")
		if code != 0 {
			t.Fatalf("validate: exit %d\n%s%s", code, stdout, stderr)
		}
		var v struct {
			Plan []struct {
				Name, Type string
				SpecHash   string `json:"spec_hash"`
			} `json:"plan"`
		}
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Fatalf("validate output: %v\n%s", err, stdout)
		}
		var hash string
		for _, s := range v.Plan {
			if s.Name == "cdn-purge" && s.Type == "http" {
				hash = s.SpecHash
			}
		}
		if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(hash) {
			t.Fatalf("cdn-purge's spec_hash %q in the plan:\n%s", hash, stdout)
		}
		table, _, code := cli(t, cliBin, url, "demo-ci", "validate", "-f", desc)
		if code != 0 || !regexp.MustCompile(`cdn-purge +http .* `+hash).MatchString(table) {
			t.Errorf("validate's table (exit %d) has no line of cdn-purge with its type and hash:\n%s", code, table)
		}
		for _, out := range []string{stdout, table} {
			for _, h := range hidden {
				if strings.Contains(out, h) {
					t.Errorf("validate shows %q:\n%s", h, out)
				}
			}
		}
	})

	var id, purgeID string
	t.Run("deploy follows the purge to SUCCESS", func(t *testing.T) {
		stdout, stderr, code := cli(t, cliBin, url, "demo-ci", "deploy", "-f", desc, "-o", "json", "--timeout", "2m")
		var st struct {
			ID    string `json:"id"`
			State string `json:"state"`
		}
		if err := json.Unmarshal([]byte(stdout), &st); err != nil || code != 0 || st.State != "SUCCESS" {
			t.Fatalf("deploy: exit %d, %v\nstdout:\n%s\nstderr:\n%s", code, err, stdout, stderr)
		}
		id = st.ID
		out, errOut, code := cli(t, cliBin, url, "demo-ci", "status", id, "-o", "json")
		if code != 0 {
			t.Fatalf("status: exit %d\n%s", code, errOut)
		}
		var status struct {
			Steps []struct {
				Name, Type, State string
				Attempts          int
				SpecHash          string            `json:"spec_hash"`
				Output            map[string]string `json:"output"`
			} `json:"steps"`
		}
		if err := json.Unmarshal([]byte(out), &status); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range status.Steps {
			names = append(names, s.Name)
			if s.Name != "cdn-purge" {
				continue
			}
			purgeID = s.Output["purge_id"]
			if s.Type != "http" || s.State != "SUCCESS" || s.Attempts != 1 || len(s.SpecHash) != 64 ||
				!regexp.MustCompile(`^purge-[0-9a-f]{16}$`).MatchString(purgeID) {
				t.Errorf("cdn-purge in the status: %+v, want one attempt, SUCCESS, its purge_id", s)
			}
		}
		if len(names) < 2 || names[len(names)-2] != "cdn-purge" || names[len(names)-3] != "activation" {
			t.Errorf("steps %q, want cdn-purge after activation, before cleanup", names)
		}
		for _, h := range hidden {
			if strings.Contains(out, h) {
				t.Errorf("the status shows %q:\n%s", h, out)
			}
		}
	})
	if id == "" || purgeID == "" {
		return
	}

	t.Run("the log names the requests, never the token", func(t *testing.T) {
		log, errOut, code := cli(t, cliBin, url, "demo-ci", "logs", id)
		if code != 0 {
			t.Fatalf("logs: exit %d\n%s", code, errOut)
		}
		for _, want := range []string{
			"POST " + cdn + "/zones/0f3a9c1e5b7d42a8a1c3e5f7091b2d4c/purge: 202",
			"GET " + cdn + "/purges/" + purgeID + ": 200",
		} {
			if !strings.Contains(log, want) {
				t.Errorf("the log has no line %q:\n%s", want, log)
			}
		}
		// The first poll finds the purge pending, the second done.
		if n := strings.Count(log, "GET "+cdn+"/purges/"+purgeID+": 200"); n != 2 {
			t.Errorf("%d polls in the log, want 2:\n%s", n, log)
		}
		for _, h := range []string{secret, base64.StdEncoding.EncodeToString([]byte(secret)), "Bearer"} {
			if strings.Contains(log, h) {
				t.Errorf("the log shows %q:\n%s", h, log)
			}
		}
	})

	t.Run("the CDN's authority, where dev wrote it, vouches for the CDN", func(t *testing.T) {
		certs, err := safehttp.ReadCAFile(filepath.Join(dir, ".manent/demo-cdn/ca.pem"))
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequest(http.MethodGet, "https://"+cdn+"/purges/"+purgeID, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := safehttp.Do(safehttp.New(safehttp.Options{RootCAs: safehttp.SystemRootsWith(certs)}), req, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var p struct{ Status string }
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || p.Status != "done" {
			t.Errorf("GET the purge: %d, status %q (%v), want done", resp.StatusCode, p.Status, err)
		}
	})
}

// edit replaces old with new in a file, which must hold it count times.
func edit(t *testing.T, path, old, new string, count int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), old); n != count {
		t.Fatalf("%s has %q %d times, want %d", path, old, n, count)
	}
	write(t, path, strings.ReplaceAll(string(b), old, new))
}
