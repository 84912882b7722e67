package democdn

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const zone = "0f3a9c1e5b7d42a8a1c3e5f7091b2d4c"

// call sends one request to the API and returns its status and body.
func call(t *testing.T, h http.Handler, method, path, auth, key, body string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b)
}

// TestRefusals: every request that the API refuses, and why; the answer
// never holds what the client sent as its token.
func TestRefusals(t *testing.T) {
	h := Handler(slog.New(slog.DiscardHandler))
	bearer := "Bearer " + Token
	tests := []struct {
		name, method, path, auth, key, body string
		status                              int
		says                                string
	}{
		{"no token", "POST", "/zones/" + zone + "/purge", "", "k", `{"tags": ["a"]}`, 401, "bearer token"},
		{"another token", "POST", "/zones/" + zone + "/purge", "Bearer guessed-token-1234", "k", `{"tags": ["a"]}`, 401, "bearer token"},
		{"basic authentication", "GET", "/purges/purge-1", "Basic " + Token, "", "", 401, "bearer token"},
		{"no idempotency key", "POST", "/zones/" + zone + "/purge", bearer, "", `{"tags": ["a"]}`, 400, "Idempotency-Key"},
		{"a zone that is not one", "POST", "/zones/shop/purge", bearer, "k", `{"tags": ["a"]}`, 404, "no such zone"},
		{"no tags", "POST", "/zones/" + zone + "/purge", bearer, "k", `{"tags": []}`, 400, "tags"},
		{"an empty tag", "POST", "/zones/" + zone + "/purge", bearer, "k", `{"tags": [""]}`, 400, "tags"},
		{"not JSON", "POST", "/zones/" + zone + "/purge", bearer, "k", `tags=a`, 400, "body"},
		{"an unknown field", "POST", "/zones/" + zone + "/purge", bearer, "k", `{"tags": ["a"], "all": true}`, 400, "body"},
		{"an unknown purge", "GET", "/purges/purge-0000", bearer, "", "", 404, "no such purge"},
		{"another endpoint", "GET", "/zones", bearer, "", "", 404, "no such endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := call(t, h, tt.method, tt.path, tt.auth, tt.key, tt.body)
			if status != tt.status || !strings.Contains(body, tt.says) {
				t.Fatalf("%d %s, want %d saying %q", status, body, tt.status, tt.says)
			}
			if strings.Contains(body, "guessed-token") || strings.Contains(body, Token) {
				t.Errorf("the answer shows a token: %s", body)
			}
		})
	}
}

// TestPurge: a purge starts pending, is pending at its first poll and
// done at the second; the same Idempotency-Key finds the same purge
// instead of starting another, and cannot start a different one.
func TestPurge(t *testing.T) {
	h := Handler(slog.New(slog.DiscardHandler))
	bearer := "Bearer " + Token
	start := func(key, tags string) (int, map[string]map[string]any) {
		t.Helper()
		status, body := call(t, h, "POST", "/zones/"+zone+"/purge", bearer, key, `{"tags": `+tags+`}`)
		var v map[string]map[string]any
		if status == http.StatusAccepted {
			if err := json.Unmarshal([]byte(body), &v); err != nil {
				t.Fatalf("%s: %v", body, err)
			}
		}
		return status, v
	}
	status, first := start("hello-1:cdn-purge", `["hello", "hello-1.2.0"]`)
	id, _ := first["result"]["id"].(string)
	if status != http.StatusAccepted || first["result"]["status"] != "pending" || !strings.HasPrefix(id, "purge-") {
		t.Fatalf("start: %d %v", status, first)
	}
	if status, again := start("hello-1:cdn-purge", `["hello", "hello-1.2.0"]`); status != http.StatusAccepted || again["result"]["id"] != id {
		t.Fatalf("the same key again: %d %v, want purge %s", status, again, id)
	}
	if status, other := start("hello-2:cdn-purge", `["hello"]`); status != http.StatusAccepted || other["result"]["id"] == id {
		t.Fatalf("another key: %d %v, want another purge", status, other)
	}
	if status, _ := start("hello-1:cdn-purge", `["shop"]`); status != http.StatusUnprocessableEntity {
		t.Fatalf("the same key for other tags: %d, want 422", status)
	}
	for _, want := range []string{"pending", "done", "done"} {
		status, body := call(t, h, "GET", "/purges/"+id, bearer, "", "")
		var p map[string]any
		if err := json.Unmarshal([]byte(body), &p); err != nil || status != http.StatusOK || p["status"] != want || p["zone"] != zone {
			t.Fatalf("poll: %d %s, want %s", status, body, want)
		}
	}
}
