package engine_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// fakeChat is a chat side that wants every event but the steps that
// succeeded, and fails the first post of each event once.
type fakeChat struct {
	mu    sync.Mutex
	posts map[string]int
	sent  []chatPost
	got   chan chatPost
}

type chatPost struct {
	n     deploy.Notice
	state deploy.State
	link  string
}

func newFakeChat() *fakeChat { return &fakeChat{posts: map[string]int{}, got: make(chan chatPost, 64)} }

func (f *fakeChat) Wants(n deploy.Notice, d *deploy.Deployment) []string {
	if d.Application != "app" || (n.Type == deploy.NoticeStep && n.State != string(deploy.StepError)) {
		return nil
	}
	return []string{"ops"}
}

func (f *fakeChat) Send(_ context.Context, _ string, n deploy.Notice, st deploy.Status, link string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posts[n.ID]++
	if f.posts[n.ID] == 1 {
		return errors.New("chat is down")
	}
	p := chatPost{n: n, state: st.State, link: link}
	f.sent = append(f.sent, p)
	f.got <- p
	return nil
}

// The chat side gets the start, the approval asked, the failed step and
// the end of a deploy, each posted once it succeeds (a failed post is
// retried), with the link of the deploy; a succeeded step is not posted.
func TestChatReceivesTheEventsItWants(t *testing.T) {
	chat := newFakeChat()
	e := newEnvWith(t, envOptions{chat: chat, governor: prodNeeds(1, time.Hour),
		engineYAML: "callbacks: {first_retry: 20ms}\n"})
	e.plugin.deploy = func(context.Context, deploy.PluginRequest) error { return deploy.Permanentf("broken") }
	e.submit("chat-1", "app", "prod")
	e.waitState("chat-1", deploy.StateAwaitingApproval)
	if _, err := e.eng.Approve(as(e, "token:ops1"), "chat-1", "go"); err != nil {
		t.Fatal(err)
	}
	want := []string{"chat-1:event:approval", "chat-1:event:started", "chat-1:event:step:deploy", "chat-1:event:finished"}
	var got []string
	timeout := time.After(90 * time.Second)
	for len(got) < len(want) {
		select {
		case p := <-chat.got:
			got = append(got, p.n.ID)
			// server.public_url (none here) comes first.
			if p.link != "/deployments/chat-1" {
				t.Errorf("link %q", p.link)
			}
			if p.n.Type == deploy.NoticeFinished && (p.n.State != string(deploy.StateError) || p.state != deploy.StateError) {
				t.Errorf("finished %+v, status %s", p.n, p.state)
			}
		case <-timeout:
			t.Fatalf("posted %v, want %v", got, want)
		}
	}
	for _, id := range want {
		if !slices.Contains(got, id) {
			t.Errorf("no post of %s (got %v)", id, got)
		}
	}
	chat.mu.Lock()
	defer chat.mu.Unlock()
	for _, id := range want {
		if chat.posts[id] != 2 {
			t.Errorf("%s posted %d times, want a failure then a success", id, chat.posts[id])
		}
	}
}
