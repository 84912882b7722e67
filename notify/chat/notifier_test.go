package chat_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/notify/chat"
)

func TestSendOutcomes(t *testing.T) {
	started := chat.Event{ID: "ev-1", Type: deploy.NoticeStarted, DeploymentID: "hello-prod-42"}
	for _, tc := range []struct {
		name      string
		status    int
		location  string
		permanent bool
		ok        bool
	}{
		{name: "ok", status: 200, ok: true},
		{name: "accepted", status: 204, ok: true},
		{name: "rate limited", status: 429},
		{name: "server error", status: 503},
		{name: "gone", status: 410, permanent: true},
		{name: "not found", status: 404, permanent: true},
		{name: "redirect", status: 302, location: "https://elsewhere.example.com/", permanent: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tc.location != "" {
					w.Header().Set("Location", tc.location)
				}
				w.WriteHeader(tc.status)
			}))
			defer srv.Close()
			url := srv.URL + "/services/T0/B0/the-secret-part"
			err := notifier(t, url, config.ChatTarget{AllowHTTP: true}).Send(context.Background(), "ops", started, baseStatus(deploy.StatePending), "")
			if tc.ok {
				if err != nil {
					t.Fatalf("Send: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Send succeeded, want an error")
			}
			if deploy.IsPermanent(err) != tc.permanent {
				t.Errorf("permanent = %v, want %v: %v", deploy.IsPermanent(err), tc.permanent, err)
			}
			if strings.Contains(err.Error(), "the-secret-part") || strings.Contains(err.Error(), srv.URL) {
				t.Errorf("error %q shows the webhook URL", err)
			}
		})
	}
}

func TestSendRefusals(t *testing.T) {
	started := chat.Event{ID: "ev-1", Type: deploy.NoticeStarted, DeploymentID: "hello-prod-42"}
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/services/T0/B0/the-secret-part"
	down.Close()
	for _, tc := range []struct {
		name, url string
		target    config.ChatTarget
		permanent bool
		want      string
	}{
		{name: "http without allow_http", url: "http://127.0.0.1:9/services/the-secret-part", permanent: true,
			want: "must be https://"},
		{name: "not a URL", url: "the-secret-part", permanent: true, want: "not an absolute URL"},
		{name: "credentials", url: "https://user:the-secret-part@hooks.example.com/x", permanent: true, want: "credentials"},
		{name: "other scheme", url: "ftp://hooks.example.com/the-secret-part", permanent: true, want: "https://"},
		{name: "receiver down", url: downURL, target: config.ChatTarget{AllowHTTP: true}, want: "post the message"},
		{name: "link-local", url: "http://169.254.169.254/the-secret-part", target: config.ChatTarget{AllowHTTP: true},
			want: "destination address refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := notifier(t, tc.url, tc.target).Send(context.Background(), "ops", started, baseStatus(deploy.StatePending), "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Send = %v, want an error with %q", err, tc.want)
			}
			if deploy.IsPermanent(err) != tc.permanent {
				t.Errorf("permanent = %v, want %v", deploy.IsPermanent(err), tc.permanent)
			}
			if strings.Contains(err.Error(), "the-secret-part") {
				t.Errorf("error %q shows the webhook URL", err)
			}
		})
	}
	t.Run("a reference that cannot be read", func(t *testing.T) {
		cfg := &config.Config{Notifications: config.Notifications{Chat: []config.ChatTarget{{Name: "ops", Type: "slack", WebhookRef: "env:MANENT_SECRET_X"}}}}
		n := chat.New(cfg, chat.Options{Resolve: func(context.Context, string) (string, error) {
			return "", deploy.Permanentf("secret reference env:MANENT_SECRET_X: variable not set")
		}})
		err := n.Send(context.Background(), "ops", started, baseStatus(deploy.StatePending), "")
		if !deploy.IsPermanent(err) {
			t.Fatalf("Send = %v, want a permanent error", err)
		}
	})
	t.Run("a target that does not exist", func(t *testing.T) {
		err := notifier(t, "https://hooks.example.com/x", config.ChatTarget{}).Send(context.Background(), "gone", started, baseStatus(deploy.StatePending), "")
		if !deploy.IsPermanent(err) {
			t.Fatalf("Send = %v, want a permanent error", err)
		}
	})
}

func TestSendTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	cfg := &config.Config{Notifications: config.Notifications{Chat: []config.ChatTarget{{Name: "ops", Type: "slack", WebhookRef: "env:X", AllowHTTP: true}}}}
	n := chat.New(cfg, chat.Options{Timeout: 50 * time.Millisecond,
		Resolve: func(context.Context, string) (string, error) { return srv.URL + "/hook", nil }})
	err := n.Send(context.Background(), "ops", chat.Event{Type: deploy.NoticeStarted}, baseStatus(deploy.StatePending), "")
	if err == nil || deploy.IsPermanent(err) || !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "Timeout") {
		t.Fatalf("Send = %v, want a retryable timeout", err)
	}
}

func TestWants(t *testing.T) {
	targets := []config.ChatTarget{
		{Type: "slack", WebhookRef: "env:A"},
		{Name: "prod-approvals", Type: "slack", WebhookRef: "env:B", Environments: []string{"prod"}, Events: []string{config.ChatApproval, config.ChatRollback}},
		{Type: "slack", WebhookRef: "env:C", Applications: []string{"other/*"}},
	}
	cfg := &config.Config{Notifications: config.Notifications{Chat: targets}}
	n := chat.New(cfg, chat.Options{Resolve: func(context.Context, string) (string, error) { return "", nil }})
	prod := &deploy.Deployment{ID: "d", Tenant: "demo", Application: "hello", Environment: "prod", State: deploy.StateAwaitingApproval}
	dry := *prod
	dry.DryRun = true
	a, c := targets[0].Key(), targets[2].Key()
	for _, tc := range []struct {
		name string
		ev   chat.Event
		d    *deploy.Deployment
		want []string
	}{
		{"approval in prod", chat.Event{Type: deploy.NoticeApproval}, prod, []string{a, "prod-approvals"}},
		{"start in prod", chat.Event{Type: deploy.NoticeStarted}, prod, []string{a}},
		{"failed step", chat.Event{Type: deploy.NoticeStep, Step: "deploy", State: "ERROR"}, prod, []string{a}},
		{"step that succeeded", chat.Event{Type: deploy.NoticeStep, Step: "deploy", State: "SUCCESS"}, prod, nil},
		{"dry run", chat.Event{Type: deploy.NoticeStarted}, &dry, nil},
		{"other tenant", chat.Event{Type: deploy.NoticeStarted}, &deploy.Deployment{Tenant: "other", Application: "x", Environment: "dev"}, []string{a, c}},
	} {
		if got := n.Wants(tc.ev, tc.d); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Wants = %v, want %v", tc.name, got, tc.want)
		}
	}
	if chat.New(&config.Config{}, chat.Options{}).Wants(chat.Event{Type: deploy.NoticeStarted}, prod) != nil {
		t.Error("no targets: Wants lists some")
	}
}
