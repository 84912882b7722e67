package chat_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/notify/chat"
)

// TestSendChecksTheTargetStillCoversTheDeploy the engine records
// the chat targets that want an event when it happens, and Send posts
// when the message goes out (an hour of retries, or a queue backlog,
// later), after manent.yml may have been reloaded. A target is found by
// its key, never by its index, and must still want the message for the
// deploy of the status: a queued message of tenant demo never goes to
// acme's channel, and one whose target is gone is dropped for good.
func TestSendChecksTheTargetStillCoversTheDeploy(t *testing.T) {
	demo := config.ChatTarget{Type: config.ChatSlack, WebhookRef: "env:DEMO", AllowHTTP: true, Applications: []string{"demo/*"}}
	acme := config.ChatTarget{Type: config.ChatSlack, WebhookRef: "env:ACME", AllowHTTP: true, Applications: []string{"acme/*"}}
	named := func(tg config.ChatTarget, name string) config.ChatTarget { tg.Name = name; return tg }
	failures := named(demo, "ops")
	failures.Events = []string{config.ChatFailure}
	for _, tc := range []struct {
		name string
		// before is the config when the event happens, after when the
		// message goes out.
		before, after []config.ChatTarget
		posted        []string
	}{
		{name: "the same config", before: []config.ChatTarget{demo, acme}, after: []config.ChatTarget{demo, acme},
			posted: []string{"DEMO"}},
		{name: "targets reordered", before: []config.ChatTarget{demo, acme}, after: []config.ChatTarget{acme, demo},
			posted: []string{"DEMO"}},
		{name: "the target removed", before: []config.ChatTarget{demo, acme}, after: []config.ChatTarget{acme}},
		{name: "the target's scope changed", before: []config.ChatTarget{demo}, after: []config.ChatTarget{{Type: config.ChatSlack,
			WebhookRef: "env:DEMO", AllowHTTP: true, Applications: []string{"acme/*"}}}},
		{name: "a named target moved to another tenant", before: []config.ChatTarget{named(demo, "ops")},
			after: []config.ChatTarget{named(acme, "ops")}},
		{name: "a named target's events changed", before: []config.ChatTarget{named(demo, "ops")},
			after: []config.ChatTarget{failures}},
		{name: "a named target given another webhook", before: []config.ChatTarget{named(demo, "ops")},
			after: []config.ChatTarget{acme, named(config.ChatTarget{Type: config.ChatSlack, WebhookRef: "env:DEMO2", AllowHTTP: true,
				Applications: []string{"demo/*"}}, "ops")}, posted: []string{"DEMO2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var posted atomic.Value
			posted.Store([]string(nil))
			srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				posted.Store(append(posted.Load().([]string), strings.TrimPrefix(r.URL.Path, "/")))
			}))
			defer srv.Close()
			resolve := chat.Options{Resolve: func(_ context.Context, ref string) (string, error) {
				return srv.URL + "/" + strings.TrimPrefix(ref, "env:"), nil
			}}
			cfg := func(ts []config.ChatTarget) *config.Config {
				return &config.Config{Notifications: config.Notifications{Chat: ts}}
			}
			started := chat.Event{ID: "ev-1", Type: deploy.NoticeStarted, DeploymentID: "hello-prod-42"}
			st := baseStatus(deploy.StatePending) // a deploy of tenant demo
			d := &deploy.Deployment{ID: st.ID, Tenant: st.Tenant, Application: st.Application, Environment: st.Environment,
				State: st.State}
			keys := chat.New(cfg(tc.before), resolve).Wants(started, d)
			if len(keys) != 1 {
				t.Fatalf("Wants = %v, want demo's target alone", keys)
			}
			err := chat.New(cfg(tc.after), resolve).Send(context.Background(), keys[0], started, st, "")
			got := posted.Load().([]string)
			if strings.Join(got, ",") != strings.Join(tc.posted, ",") {
				t.Errorf("posted to %v, want %v", got, tc.posted)
			}
			if len(tc.posted) == 0 && (!deploy.IsPermanent(err) || !strings.Contains(err.Error(), "the message is dropped")) {
				t.Errorf("Send = %v, want a permanent error that says the message is dropped", err)
			}
			if len(tc.posted) > 0 && err != nil {
				t.Errorf("Send = %v", err)
			}
		})
	}
}
