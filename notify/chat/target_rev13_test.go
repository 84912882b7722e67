package chat_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/notify/chat"
)

// TestSendChecksTheTargetStillCoversTheDeploy (rev13, FAILS on a33e1c1):
// the engine records a chat target by its index in notifications.chat when
// the event happens, and Send posts to whatever target has that index when
// the message goes out (an hour of retries, or a queue backlog, later).
// After manent.yml's targets are reordered or one is removed, a queued
// message of tenant demo goes to acme's channel.
func TestSendChecksTheTargetStillCoversTheDeploy(t *testing.T) {
	posted := 0
	acme := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { posted++ }))
	defer acme.Close()
	// The config after a reload: acme's target is now index 0.
	cfg := &config.Config{Notifications: config.Notifications{Chat: []config.ChatTarget{
		{Type: config.ChatSlack, WebhookRef: "env:ACME", AllowHTTP: true, Applications: []string{"acme/*"}},
	}}}
	n := chat.New(cfg, chat.Options{Resolve: func(context.Context, string) (string, error) { return acme.URL + "/x", nil }})
	started := chat.Event{ID: "ev-1", Type: deploy.NoticeStarted, DeploymentID: "hello-prod-42"}
	_ = n.Send(context.Background(), 0, started, baseStatus(deploy.StatePending), "") // a demo deploy
	if posted != 0 {
		t.Errorf("a message of tenant demo's deploy went to a target that covers only acme/*")
	}
}
