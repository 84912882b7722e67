package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPermissionRemovedWhileSubscribed removes a reader's permission from
// manent.yml while it follows activity, and reloads the policy as SIGHUP
// does: the subscription gets no event of what it may no longer read, its
// next reads are refused as for a missing deploy, and a policy that does
// not load leaves the one in force.
func TestPermissionRemovedWhileSubscribed(t *testing.T) {
	configPath, _ := demoConfig(t)
	dir := filepath.Dir(configPath)
	env := filepath.Join(dir, "envconfig/demo/other/staging.yml")
	if err := os.MkdirAll(filepath.Dir(env), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, env, "plugin: local\ntargets:\n  - path: "+filepath.Join(dir, "other")+"\n")
	raw, err := os.ReadFile(configPath)
	if err != nil {
		t.Fatal(err)
	}
	const everything = "    p, group:viewers, demo, *, deployment.read\n"
	if !strings.Contains(string(raw), everything) {
		t.Fatalf("the demo config has no %q", everything)
	}
	srv := startServer(t, configPath)

	conn, err := dial(t, srv, nil, map[string]any{"token": demoTokens["viewer"]})
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]any{"query": `subscription { activity { kind deployment { id state } } }`})
	if err := conn.WriteJSON(wsMessage{Type: "subscribe", ID: "1", Payload: payload}); err != nil {
		t.Fatal(err)
	}
	msgs := make(chan string, 1024)
	go func() {
		defer close(msgs)
		for {
			_ = conn.SetReadDeadline(time.Now().Add(2 * time.Minute))
			_, m, err := conn.ReadMessage()
			if err != nil {
				return
			}
			msgs <- string(m)
		}
	}()
	submitter := map[string]string{"hello": "ci", "other": "outsider"}
	submit := func(app, id string) {
		t.Helper()
		body := strings.ReplaceAll(fmt.Sprintf(helloDescriptor, id), "application: hello", "application: "+app)
		if resp, out := request(t, "POST", srv.URL()+"/api/v1/deployments", demoTokens[submitter[app]], body); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("submit %s: %d %s", id, resp.StatusCode, out)
		}
	}
	var seen []string
	// await reads the feed until the SUCCESS of id, false after limit.
	await := func(id string, limit time.Duration) bool {
		t.Helper()
		timer := time.NewTimer(limit)
		defer timer.Stop()
		for {
			select {
			case m, ok := <-msgs:
				if !ok {
					t.Fatalf("the feed ended: %v", seen)
				}
				seen = append(seen, m)
				if strings.Contains(m, `"id":"`+id+`"`) && strings.Contains(m, `"state":"SUCCESS"`) {
					return true
				}
			case <-timer.C:
				return false
			}
		}
	}
	// The subscription is in place once it pushed a change.
	for round := 0; ; round++ {
		if round == 10 {
			t.Fatalf("no event in %d rounds: %v", round, seen)
		}
		id := fmt.Sprintf("before-%d", round)
		submit("hello", id)
		if await(id, time.Minute) {
			break
		}
	}

	// The viewers keep other and lose hello.
	write(t, configPath, strings.Replace(string(raw), everything, "    p, group:viewers, demo, other/*, deployment.read\n", 1))
	if err := srv.ReloadRBAC(); err != nil {
		t.Fatal(err)
	}
	submit("hello", "hidden-1")
	submit("other", "z-other-end")
	seen = nil
	if !await("z-other-end", 2*time.Minute) {
		t.Fatalf("no SUCCESS of z-other-end, which the viewer still reads: %v", seen)
	}
	for _, m := range seen {
		if strings.Contains(m, "hidden-1") {
			t.Errorf("the viewer got an event of a deploy it may no longer read: %s", m)
		}
	}
	resp, hidden := request(t, "GET", srv.URL()+"/api/v1/deployments/hidden-1", demoTokens["viewer"], "")
	_, missing := request(t, "GET", srv.URL()+"/api/v1/deployments/no-such-deploy", demoTokens["viewer"], "")
	if resp.StatusCode != http.StatusNotFound || strings.ReplaceAll(string(hidden), "hidden-1", "X") != strings.ReplaceAll(string(missing), "no-such-deploy", "X") {
		t.Errorf("the viewer reads hidden-1: %d %s, want the answer about a missing deploy %s", resp.StatusCode, hidden, missing)
	}

	// A policy that does not load changes nothing.
	write(t, configPath, strings.Replace(string(raw), everything, "    p, group:viewers, demo, *, deployment.reed\n", 1))
	if err := srv.ReloadRBAC(); err == nil {
		t.Fatal("a policy with an unknown permission was put in force")
	}
	if resp, body := request(t, "GET", srv.URL()+"/api/v1/deployments/z-other-end", demoTokens["viewer"], ""); resp.StatusCode != http.StatusOK {
		t.Errorf("after a refused reload the viewer lost other: %d %s", resp.StatusCode, body)
	}
}
