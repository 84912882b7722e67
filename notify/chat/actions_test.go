package chat_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/notify/chat"
)

// approver is a func-field fake of the service: the rules themselves are
// tested through the real server (server/chat_test.go).
type approver struct {
	get    func(ctx context.Context, id string) (*deploy.Deployment, error)
	answer func(ctx context.Context, id string, pass int, approve bool) (*deploy.Deployment, error)
}

func (a approver) Get(ctx context.Context, id string) (*deploy.Deployment, error) {
	return a.get(ctx, id)
}
func (a approver) AnswerPass(ctx context.Context, id string, pass int, approve bool, _ string) (*deploy.Deployment, error) {
	return a.answer(ctx, id, pass, approve)
}

type auditLog []deploy.AuditEntry

func (l *auditLog) AppendAudit(_ context.Context, e deploy.AuditEntry) error {
	*l = append(*l, e)
	return nil
}

// TestActionsRespondAtResponseURL: Slack shows the user nothing of the
// body of the answer to a button; the message goes to response_url.
func TestActionsRespondAtResponseURL(t *testing.T) {
	got := make(chan map[string]any, 1)
	slack := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		var v map[string]any
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &v)
		got <- v
	}))
	defer slack.Close()
	cfg := &config.Config{Notifications: config.Notifications{Chat: []config.ChatTarget{{
		Type: "slack", WebhookRef: "env:W", SigningSecretRef: "env:S",
		Users: []config.ChatUser{{Slack: "U0ALICE", Identity: "oidc:alice", Groups: []string{"sre"}}},
	}}}}
	n := chat.New(cfg, chat.Options{ResponseURLPrefix: slack.URL + "/actions/",
		Resolve: func(context.Context, string) (string, error) { return "secret", nil }})
	d := &deploy.Deployment{ID: "hello-1", Tenant: "demo", Application: "hello", Environment: "prod",
		State: deploy.StateAwaitingApproval, Requester: "token:ci"}
	var asked deploy.Identity
	svc := approver{
		get: func(context.Context, string) (*deploy.Deployment, error) { return d, nil },
		answer: func(ctx context.Context, _ string, _ int, approve bool) (*deploy.Deployment, error) {
			asked = deploy.IdentityFrom(ctx)
			after := *d
			after.State = deploy.StateEnqueued
			return &after, nil
		},
	}
	var audit auditLog
	h := n.Actions(svc, &audit, slog.New(slog.DiscardHandler))
	for _, tc := range []struct {
		name, responseURL string
		posted            bool
	}{
		{"Slack's response URL", slack.URL + "/actions/T0/1/abc", true},
		{"anywhere else", "http://127.0.0.1:1/elsewhere", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			value, _ := json.Marshal(chat.ActionValue{Deployment: "hello-1"})
			p, _ := json.Marshal(map[string]any{"type": "block_actions", "user": map[string]string{"id": "U0ALICE"},
				"response_url": tc.responseURL,
				"actions":      []map[string]string{{"action_id": chat.ActionApprove, "value": string(value)}}})
			body := url.Values{"payload": {string(p)}}.Encode()
			ts := strconv.FormatInt(time.Now().Unix(), 10)
			req := httptest.NewRequest("POST", "/api/v1/chat/slack/actions", strings.NewReader(body))
			req.Header.Set("X-Slack-Request-Timestamp", ts)
			req.Header.Set("X-Slack-Signature", chat.Sign("secret", ts, []byte(body)))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			n.Wait()
			want := "You approved `hello-1`: it is now ENQUEUED."
			if !strings.Contains(rec.Body.String(), want) {
				t.Errorf("answer %s, want %q", rec.Body, want)
			}
			if asked.Subject != "oidc:alice" || len(asked.Groups) != 1 || asked.Groups[0] != "sre" {
				t.Errorf("answered as %+v, want oidc:alice of sre", asked)
			}
			select {
			case v := <-got:
				if !tc.posted {
					t.Fatalf("posted %v to a URL that is not Slack's", v)
				}
				if v["text"] != want || v["response_type"] != "ephemeral" || v["replace_original"] != false {
					t.Errorf("response_url got %v", v)
				}
			default:
				if tc.posted {
					t.Fatal("nothing posted to the response URL")
				}
			}
		})
	}
	if len(audit) != 2 || audit[0].Actor != "oidc:alice" || audit[0].Action != chat.AuditApprove || audit[0].Details["slack_user"] != "U0ALICE" {
		t.Errorf("audit %+v", audit)
	}
}

// TestActionsRefusals covers what the handler decides before and after
// the service: the scope of the app, a request that is over, and an
// internal error that must not reach the user.
func TestActionsRefusals(t *testing.T) {
	cfg := &config.Config{Notifications: config.Notifications{Chat: []config.ChatTarget{{
		Type: "slack", WebhookRef: "env:W", SigningSecretRef: "env:S", Applications: []string{"demo/hello"},
		Users: []config.ChatUser{{Slack: "U0ALICE", Identity: "oidc:alice"}},
	}}}}
	n := chat.New(cfg, chat.Options{Resolve: func(context.Context, string) (string, error) { return "secret", nil }})
	deploys := map[string]*deploy.Deployment{
		"hello-1": {ID: "hello-1", Tenant: "demo", Application: "hello", Environment: "prod", State: deploy.StateAwaitingApproval},
		"world-1": {ID: "world-1", Tenant: "demo", Application: "world", Environment: "prod", State: deploy.StateAwaitingApproval},
		"hello-2": {ID: "hello-2", Tenant: "demo", Application: "hello", Environment: "prod", State: deploy.StateAwaitingApproval},
	}
	for _, tc := range []struct {
		name, id string
		pass     int
		err      error
		want     string
		answered bool
	}{
		{name: "a button naming no deploy ID", id: "hello-1\u0007 or worse/../x",
			want: "manent could not read this button."},
		{name: "outside the app's applications", id: "world-1",
			want: "this Slack app does not answer approvals of demo/world in prod"},
		{name: "a wave's request while the deploy awaits its own", id: "hello-1", pass: 2,
			want: "This approval request of `hello-1` is over"},
		{name: "an internal error", id: "hello-2", err: errors.New("pq: connection to 10.0.0.5 refused"),
			want: "manent could not record your answer to `hello-2`: try again, or answer in the web interface.", answered: true},
		{name: "asked no longer when the service reads it", id: "hello-2",
			err:  deploy.Errorf(deploy.ECONFLICT, `this approval is no longer asked: deployment "hello-2" now awaits the approval of wave 2`),
			want: "manent did not approve `hello-2`: this approval is no longer asked: deployment \"hello-2\" now awaits the approval of wave 2.", answered: true},
		{name: "no longer awaiting", id: "hello-2", err: deploy.Errorf(deploy.ECONFLICT, `deployment "hello-2" is not awaiting approval: EXPIRED`),
			want: "manent did not approve `hello-2`: deployment \"hello-2\" is not awaiting approval: EXPIRED.", answered: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			called := false
			svc := approver{
				get: func(_ context.Context, id string) (*deploy.Deployment, error) { return deploys[id], nil },
				answer: func(_ context.Context, _ string, pass int, _ bool) (*deploy.Deployment, error) {
					called = true
					if pass != tc.pass {
						t.Errorf("the service was asked for pass %d, want the button's %d", pass, tc.pass)
					}
					return nil, tc.err
				},
			}
			var audit auditLog
			value, _ := json.Marshal(chat.ActionValue{Deployment: tc.id, Pass: tc.pass})
			p, _ := json.Marshal(map[string]any{"type": "block_actions", "user": map[string]string{"id": "U0ALICE"},
				"actions": []map[string]string{{"action_id": chat.ActionApprove, "value": string(value)}}})
			body := url.Values{"payload": {string(p)}}.Encode()
			ts := strconv.FormatInt(time.Now().Unix(), 10)
			req := httptest.NewRequest("POST", "/api/v1/chat/slack/actions", strings.NewReader(body))
			req.Header.Set("X-Slack-Request-Timestamp", ts)
			req.Header.Set("X-Slack-Signature", chat.Sign("secret", ts, []byte(body)))
			rec := httptest.NewRecorder()
			n.Actions(svc, &audit, slog.New(slog.DiscardHandler)).ServeHTTP(rec, req)
			var out struct{ Text string }
			_ = json.Unmarshal(rec.Body.Bytes(), &out)
			if !strings.Contains(out.Text, tc.want) || strings.Contains(out.Text, "10.0.0.5") {
				t.Errorf("answer %q, want %q", out.Text, tc.want)
			}
			if called != tc.answered {
				t.Errorf("service asked = %v, want %v", called, tc.answered)
			}
			wantAudit := 1
			if strings.HasPrefix(tc.want, "manent could not read") {
				wantAudit = 0
			}
			if len(audit) != wantAudit || wantAudit > 0 && (audit[0].Action != chat.AuditApprove+".refused" || strings.Contains(fmt.Sprint(audit[0].Details), "10.0.0.5")) {
				t.Errorf("audit %+v, want one refusal without internals", audit)
			}
		})
	}
}

// TestActionsWaveMovedOnBeforeTheAnswer (L3 of the review of issue 13):
// the handler reads the deploy awaiting wave 2, as the button says; by the
// time the service records the answer, wave 2 is approved and wave 3
// asks. The service is asked for wave 2 alone, refuses, and the user is
// told the request is over: wave 3 is never approved by wave 2's button.
func TestActionsWaveMovedOnBeforeTheAnswer(t *testing.T) {
	cfg := &config.Config{Notifications: config.Notifications{Chat: []config.ChatTarget{{
		Type: "slack", WebhookRef: "env:W", SigningSecretRef: "env:S",
		Users: []config.ChatUser{{Slack: "U0ALICE", Identity: "oidc:alice"}},
	}}}}
	n := chat.New(cfg, chat.Options{Resolve: func(context.Context, string) (string, error) { return "secret", nil }})
	awaiting := func(pass int) *deploy.Deployment {
		return &deploy.Deployment{ID: "fleet-1", Tenant: "demo", Application: "hello", Environment: "prod", State: deploy.StatePending,
			Steps: []deploy.Step{{Name: deploy.StepApproval, Pass: pass, Kind: deploy.KindRun, State: deploy.StepRunning}}}
	}
	for _, approve := range []bool{true, false} {
		t.Run(fmt.Sprintf("approve=%v", approve), func(t *testing.T) {
			reads := 0
			var asked []int
			svc := approver{
				get: func(context.Context, string) (*deploy.Deployment, error) {
					reads++
					if reads == 1 {
						return awaiting(2), nil
					}
					return awaiting(3), nil
				},
				answer: func(_ context.Context, _ string, pass int, _ bool) (*deploy.Deployment, error) {
					asked = append(asked, pass)
					return nil, deploy.Errorf(deploy.ECONFLICT, `deployment "fleet-1" has no wave awaiting approval: PENDING`)
				},
			}
			var audit auditLog
			action := chat.ActionApprove
			if !approve {
				action = chat.ActionReject
			}
			value, _ := json.Marshal(chat.ActionValue{Deployment: "fleet-1", Pass: 2})
			p, _ := json.Marshal(map[string]any{"type": "block_actions", "user": map[string]string{"id": "U0ALICE"},
				"actions": []map[string]string{{"action_id": action, "value": string(value)}}})
			body := url.Values{"payload": {string(p)}}.Encode()
			ts := strconv.FormatInt(time.Now().Unix(), 10)
			req := httptest.NewRequest("POST", "/api/v1/chat/slack/actions", strings.NewReader(body))
			req.Header.Set("X-Slack-Request-Timestamp", ts)
			req.Header.Set("X-Slack-Signature", chat.Sign("secret", ts, []byte(body)))
			rec := httptest.NewRecorder()
			n.Actions(svc, &audit, slog.New(slog.DiscardHandler)).ServeHTTP(rec, req)
			var out struct{ Text string }
			_ = json.Unmarshal(rec.Body.Bytes(), &out)
			if want := "This approval request of `fleet-1` is over"; !strings.Contains(out.Text, want) {
				t.Errorf("answer %q, want %q", out.Text, want)
			}
			if len(asked) != 1 || asked[0] != 2 {
				t.Errorf("the service was asked for passes %v, want [2], the button's", asked)
			}
			if len(audit) != 1 || !strings.HasSuffix(audit[0].Action, ".refused") || audit[0].Details["pass"] != 2 {
				t.Errorf("audit %+v, want one refusal of pass 2", audit)
			}
		})
	}
}
