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

// TestActivityFanOutKeepsTenantsApart runs many websocket subscribers of
// activity on a real server (one hub, one read per change, Casbin per
// subscriber): readers of hello, readers of other and readers of both,
// while deploys of both run at once. Each gets every change of what it may
// read, each deploy's states in order, and nothing of the rest.
func TestActivityFanOutKeepsTenantsApart(t *testing.T) {
	configPath, _ := demoConfig(t)
	dir := filepath.Dir(configPath)
	env := filepath.Join(dir, "envconfig/demo/other/staging.yml")
	if err := os.MkdirAll(filepath.Dir(env), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(env, []byte("plugin: local\ntargets:\n  - path: "+filepath.Join(dir, "other")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, configPath)

	const perIdentity = 8
	type feed struct {
		who  string
		msgs chan string
		// seen is every message read so far.
		seen []string
	}
	var feeds []*feed
	for _, who := range []string{"ci", "outsider", "viewer"} {
		for range perIdentity {
			conn, err := dial(t, srv, nil, map[string]any{"token": demoTokens[who]})
			if err != nil {
				t.Fatal(err)
			}
			payload, _ := json.Marshal(map[string]any{"query": `subscription { activity { kind deployment { id state } } }`})
			if err := conn.WriteJSON(wsMessage{Type: "subscribe", ID: "1", Payload: payload}); err != nil {
				t.Fatal(err)
			}
			f := &feed{who: who, msgs: make(chan string, 4096)}
			go func() {
				defer close(f.msgs)
				for {
					_ = conn.SetReadDeadline(time.Now().Add(2 * time.Minute))
					_, raw, err := conn.ReadMessage()
					if err != nil {
						return
					}
					f.msgs <- string(raw)
				}
			}()
			feeds = append(feeds, f)
		}
	}
	submitter := map[string]string{"hello": "ci", "other": "outsider"}
	submit := func(app, id string) {
		t.Helper()
		body := strings.ReplaceAll(fmt.Sprintf(helloDescriptor, id), "application: hello", "application: "+app)
		resp, out := request(t, "POST", srv.URL()+"/api/v1/deployments", demoTokens[submitter[app]], body)
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("submit %s: %d %s", id, resp.StatusCode, out)
		}
	}
	succeeded := func(msg, id string) bool {
		return strings.Contains(msg, `"id":"`+id+`"`) && strings.Contains(msg, `"state":"SUCCESS"`)
	}
	// awaitSuccess reads f until it has read the SUCCESS of id; false when
	// none came within limit (a subscription not yet in place missed it).
	awaitSuccess := func(f *feed, id string, limit time.Duration) bool {
		t.Helper()
		for _, msg := range f.seen {
			if succeeded(msg, id) {
				return true
			}
		}
		timer := time.NewTimer(limit)
		defer timer.Stop()
		for {
			select {
			case msg, ok := <-f.msgs:
				if !ok {
					t.Fatalf("%s: the feed ended: %v", f.who, f.seen)
				}
				f.seen = append(f.seen, msg)
				if succeeded(msg, id) {
					return true
				}
			case <-timer.C:
				return false
			}
		}
	}
	reads := map[string][]string{"ci": {"hello"}, "outsider": {"other"}, "viewer": {"hello", "other"}}
	// A subscription has no answer that says it is in place: it is once it
	// pushed a change. Deploy until every feed got one.
	pending := feeds
	for round := 0; len(pending) > 0; round++ {
		if round == 10 {
			t.Fatalf("%d feeds got no event of %d rounds", len(pending), round)
		}
		for _, app := range []string{"hello", "other"} {
			submit(app, fmt.Sprintf("ready-%s-%d", app, round))
		}
		var late []*feed
		for _, f := range pending {
			for _, app := range reads[f.who] {
				if !awaitSuccess(f, fmt.Sprintf("ready-%s-%d", app, round), time.Minute) {
					late = append(late, f)
					break
				}
			}
		}
		pending = late
	}
	// Both apps at once, then an end marker of each that sorts after them:
	// a burst is read in the order of the IDs, so a feed that read its
	// marker's SUCCESS was offered every change of the deploys before it.
	submit("hello", "hello-1")
	submit("other", "other-1")
	for _, f := range feeds {
		for _, app := range reads[f.who] {
			if !awaitSuccess(f, app+"-1", 2*time.Minute) {
				t.Fatalf("%s: no SUCCESS of %s-1: %v", f.who, app, f.seen)
			}
		}
	}
	submit("hello", "z-hello-end")
	submit("other", "z-other-end")
	for _, f := range feeds {
		for _, app := range reads[f.who] {
			if !awaitSuccess(f, "z-"+app+"-end", 2*time.Minute) {
				t.Fatalf("%s: no SUCCESS of z-%s-end: %v", f.who, app, f.seen)
			}
		}
	}
	rank := map[string]int{"ENQUEUED": 0, "PENDING": 1, "SUCCESS": 2}
	for _, f := range feeds {
		last := map[string]string{}
		for _, msg := range f.seen {
			var m struct {
				Payload struct {
					Data struct {
						Activity struct {
							Deployment struct{ ID, State string }
						}
					}
				}
			}
			if err := json.Unmarshal([]byte(msg), &m); err != nil {
				t.Fatalf("%s: %s: %v", f.who, msg, err)
			}
			d := m.Payload.Data.Activity.Deployment
			app := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(d.ID, "z-"), "ready-"), "-end")
			app, _, _ = strings.Cut(app, "-")
			if !strings.Contains(strings.Join(reads[f.who], " "), app) || d.ID == "" {
				t.Fatalf("%s got %s: %s", f.who, d.ID, msg)
			}
			if prev, ok := last[d.ID]; ok && rank[d.State] < rank[prev] {
				t.Errorf("%s got %s %s after %s", f.who, d.ID, d.State, prev)
			}
			last[d.ID] = d.State
		}
	}
}
