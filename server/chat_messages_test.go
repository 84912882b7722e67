package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/notify/chat"
)

// slackMessage is what the test's incoming webhook received.
type slackMessage struct {
	Text   string           `json:"text"`
	Blocks []map[string]any `json:"blocks"`
}

// TestChatMessagesThroughTheServer follows a deploy from its approval
// request to its success in the messages a real server posts to an
// incoming webhook on loopback, and approves it with the buttons of the
// approval message: the engine's events reach the chat side in every
// role of the process.
func TestChatMessagesThroughTheServer(t *testing.T) {
	messages := make(chan slackMessage, 16)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var m slackMessage
		if r.Method != http.MethodPost || json.Unmarshal(raw, &m) != nil {
			t.Errorf("webhook got %s %s", r.Method, raw)
		}
		messages <- m
		_, _ = io.WriteString(w, "ok")
	}))
	defer hook.Close()
	t.Setenv("MANENT_SECRET_CHAT_WEBHOOK", hook.URL+"/services/T0/B0/x")
	configPath := chatConfig(t)
	raw, err := os.ReadFile(configPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(raw), "      webhook_ref: env:MANENT_SECRET_CHAT_WEBHOOK\n",
		"      webhook_ref: env:MANENT_SECRET_CHAT_WEBHOOK\n      allow_http: true\n", 1)
	write(t, filepath.Join(filepath.Dir(configPath), "manent.yml"), cfg)
	srv := startServer(t, configPath)

	const id = "hello-chat-msg-1"
	submitAwaiting(t, srv, chatTokens["ci"], fmt.Sprintf(helloDescriptor, id))
	next := func(want string) slackMessage {
		t.Helper()
		select {
		case m := <-messages:
			blocks, _ := json.Marshal(m.Blocks)
			if !strings.Contains(m.Text, want) || !strings.Contains(string(blocks), id) {
				t.Fatalf("message %q, want one about %s saying %q", m.Text, id, want)
			}
			return m
		case <-time.After(time.Minute):
			t.Fatalf("no message saying %q", want)
		}
		return slackMessage{}
	}
	ask := next("awaits approval")
	raw, _ = json.Marshal(ask.Blocks)
	for _, action := range []string{chat.ActionApprove, chat.ActionReject} {
		if !strings.Contains(string(raw), action) {
			t.Errorf("the approval message has no %s button: %s", action, raw)
		}
	}
	if !strings.Contains(string(raw), "https://manent.example.com/deployments/"+id) {
		t.Errorf("the approval message does not link to the deploy: %s", raw)
	}
	now := time.Now()
	for _, user := range []string{"U0ALICE", "U0BOB"} {
		if a := postAction(t, srv, slackSecret, now, click(user, "T0ACME", chat.ActionApprove, id)); a.status != http.StatusOK ||
			!strings.HasPrefix(a.text, "You approved") {
			t.Fatalf("%s's click: %d %q", user, a.status, a.text)
		}
	}
	// The start and the end are two events, each delivered by a workflow of
	// its own: a deploy that ends within one poll of the events' queues may
	// post them in either order (nothing orders two events of a deploy yet).
	var said []string
	for range 2 {
		select {
		case m := <-messages:
			blocks, _ := json.Marshal(m.Blocks)
			if !strings.Contains(string(blocks), id) {
				t.Fatalf("message %q is not about %s", m.Text, id)
			}
			said = append(said, m.Text)
		case <-time.After(time.Minute):
			t.Fatalf("no message after the approvals; got %q", said)
		}
	}
	joined := strings.Join(said, "\n")
	if !strings.Contains(joined, "started") || !strings.Contains(joined, "succeeded") {
		t.Fatalf("messages after the approvals %q, want one saying started and one succeeded", said)
	}
	select {
	case m := <-messages:
		t.Errorf("a message after the end: %q", m.Text)
	default:
	}
}
