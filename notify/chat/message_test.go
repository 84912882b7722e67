package chat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/notify/chat"
)

var update = flag.Bool("update", false, "rewrite the golden messages of testdata/")

func ptr[T any](v T) *T { return &v }

var (
	created = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	expires = time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
)

// baseStatus is a deploy of hello 1.4.2 to prod whose data tries every
// trick on the chat: mentions, links, markup.
func baseStatus(state deploy.State) deploy.Status {
	return deploy.Status{
		ID: "hello-prod-42", Tenant: "demo", Application: "hello", Environment: "prod", State: state,
		Requester: "token:ci", CreatedAt: created,
		Artifact: deploy.StatusArtifact{Type: "application", Name: "hello", Version: "1.4.2",
			Source: "https://repo.example.com/hello-1.4.2.tar.gz"},
		Steps: []deploy.StatusStep{
			{Name: "config", Kind: deploy.KindRun, State: deploy.StepSuccess, Attempts: 1},
			{Name: "db-migrate", Type: "http", Kind: deploy.KindRun, State: deploy.StepSuccess, Attempts: 1,
				Output: map[string]string{"password": "s3cr3t-output"}},
			{Name: "deploy", Kind: deploy.KindRun, State: deploy.StepError, Attempts: 3,
				Error: ptr("disk full on <!channel> & @here <https://evil.example.com|click me>")},
		},
	}
}

func TestMessages(t *testing.T) {
	approval := func(st deploy.Status) deploy.Status {
		st.Approval = &deploy.StatusApproval{Status: "waiting", Required: 2, Groups: []string{"release-managers"},
			Approvals: []deploy.Approval{{DeploymentID: st.ID, Identity: "token:alice", Approved: true}}, ExpiresAt: &expires}
		return st
	}
	rolledBack := func(state string) deploy.Status {
		st := baseStatus(deploy.StateError)
		st.Error = ptr("step deploy failed")
		st.Rollback = &deploy.RollbackStatus{State: state}
		return st
	}
	cancelled := baseStatus(deploy.StateCancelled)
	cancelled.CancelledBy = ptr("oidc:bob")
	rejected := approval(baseStatus(deploy.StateRejected))
	rejected.Approval.Approvals = append(rejected.Approval.Approvals, deploy.Approval{Identity: "token:carol"})
	for _, tc := range []struct {
		golden string
		ev     chat.Event
		st     deploy.Status
	}{
		{"started", chat.Event{Type: deploy.NoticeStarted}, baseStatus(deploy.StatePending)},
		{"step-failed", chat.Event{Type: deploy.NoticeStep, Step: "deploy", State: "ERROR"}, baseStatus(deploy.StatePending)},
		{"approval", chat.Event{Type: deploy.NoticeApproval}, approval(baseStatus(deploy.StateAwaitingApproval))},
		{"wave-approval", chat.Event{Type: deploy.NoticeApproval, Step: "approval[2]"}, approval(baseStatus(deploy.StatePending))},
		{"success", chat.Event{Type: deploy.NoticeFinished, State: "SUCCESS"}, baseStatus(deploy.StateSuccess)},
		{"rolled-back", chat.Event{Type: deploy.NoticeFinished, State: "ERROR"}, rolledBack(deploy.RollbackCompleted)},
		{"rollback-failed", chat.Event{Type: deploy.NoticeFinished, State: "ERROR"}, rolledBack(deploy.RollbackFailed)},
		{"failed-no-rollback", chat.Event{Type: deploy.NoticeFinished, State: "ERROR"}, rolledBack(deploy.RollbackDisabled)},
		{"cancelled", chat.Event{Type: deploy.NoticeFinished, State: "CANCELLED"}, cancelled},
		{"rejected", chat.Event{Type: deploy.NoticeFinished, State: "REJECTED"}, rejected},
		{"expired", chat.Event{Type: deploy.NoticeFinished, State: "EXPIRED"}, baseStatus(deploy.StateExpired)},
		{"dependency-failed", chat.Event{Type: deploy.NoticeFinished, State: "DEPENDENCY_FAILED"},
			func() deploy.Status {
				st := baseStatus(deploy.StateDependencyFailed)
				st.Error = ptr("dependency db-prod-7 ended ERROR")
				return st
			}()},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			tc.ev.ID, tc.ev.DeploymentID, tc.ev.At = "ev-1", tc.st.ID, time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
			got := receive(t, tc.ev, tc.st)
			checkSafe(t, got)
			path := filepath.Join("testdata", tc.golden+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("message differs from %s:\n%s", path, got)
			}
		})
	}
}

// receive sends the event through Send to a loopback receiver and returns
// the JSON it received, indented.
func receive(t *testing.T, ev chat.Event, st deploy.Status) []byte {
	t.Helper()
	got := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s with %q, want a JSON POST", r.Method, r.Header.Get("Content-Type"))
		}
		b, _ := io.ReadAll(r.Body)
		got <- b
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	n := notifier(t, srv.URL+"/services/T0/B0/secret-path", config.ChatTarget{AllowHTTP: true})
	if err := n.Send(context.Background(), "ops", ev, st, chat.DeployLink("https://manent.example.com/", st.ID)); err != nil {
		t.Fatalf("Send: %v", err)
	}
	var v any
	if err := json.Unmarshal(<-got, &v); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// checkSafe holds every message to what deploy data may not do in Slack.
func checkSafe(t *testing.T, msg []byte) {
	t.Helper()
	s := string(msg)
	for _, bad := range []string{"<!channel>", "<https://evil", "@here", "s3cr3t-output", "repo.example.com", "secret-path"} {
		if strings.Contains(s, bad) {
			t.Errorf("message holds %q:\n%s", bad, s)
		}
	}
}

// notifier makes a one-target notifier, its target named ops, whose
// webhook_ref resolves to url.
func notifier(t *testing.T, url string, tg config.ChatTarget) *chat.Notifier {
	t.Helper()
	tg.Name, tg.Type, tg.WebhookRef = "ops", config.ChatSlack, "env:MANENT_SECRET_WEBHOOK"
	cfg := &config.Config{Notifications: config.Notifications{Chat: []config.ChatTarget{tg}}}
	return chat.New(cfg, chat.Options{Resolve: func(_ context.Context, ref string) (string, error) {
		if ref != tg.WebhookRef {
			t.Errorf("resolved %q", ref)
		}
		return url, nil
	}})
}

func TestNoMessage(t *testing.T) {
	dry := baseStatus(deploy.StateSuccess)
	dry.DryRun = true
	for name, tc := range map[string]struct {
		ev chat.Event
		st deploy.Status
	}{
		"a step that succeeded": {chat.Event{Type: deploy.NoticeStep, Step: "deploy", State: "SUCCESS"}, baseStatus(deploy.StatePending)},
		"a dry run":             {chat.Event{Type: deploy.NoticeFinished, State: "SUCCESS"}, dry},
		"an unknown event":      {chat.Event{Type: "paused"}, baseStatus(deploy.StatePending)},
	} {
		if _, ok := chat.Compose(tc.ev, tc.st, ""); ok {
			t.Errorf("%s: a message, want none", name)
		}
	}
}

// TestMessagesMakeNoLinks: Slack makes a link of a bare https://… or
// example.com in mrkdwn text, so deploy data (a version, an error, an
// identity, a group) is quoted as inline code, where it never does, and
// cannot close its code span early.
func TestMessagesMakeNoLinks(t *testing.T) {
	const evil = "https://evil.example.com/login"
	hostile := []string{evil, "see evil.example.com now", "1.0`" + evil + "`", "line one\n" + evil}
	for _, h := range hostile {
		for _, tc := range []struct {
			name string
			ev   chat.Event
			st   func(h string) deploy.Status
		}{
			{"version", chat.Event{Type: deploy.NoticeStarted}, func(h string) deploy.Status {
				st := baseStatus(deploy.StatePending)
				st.Artifact.Version = h
				return st
			}},
			{"requester", chat.Event{Type: deploy.NoticeStarted}, func(h string) deploy.Status {
				st := baseStatus(deploy.StatePending)
				st.Requester = "oidc:" + h
				return st
			}},
			{"step error", chat.Event{Type: deploy.NoticeStep, Step: "deploy", State: "ERROR"}, func(h string) deploy.Status {
				st := baseStatus(deploy.StatePending)
				st.Steps[2].Error = ptr(h)
				return st
			}},
			{"deploy error", chat.Event{Type: deploy.NoticeFinished, State: "DEPENDENCY_FAILED"}, func(h string) deploy.Status {
				st := baseStatus(deploy.StateDependencyFailed)
				st.Error = ptr(h)
				return st
			}},
			{"cancelled by", chat.Event{Type: deploy.NoticeFinished, State: "CANCELLED"}, func(h string) deploy.Status {
				st := baseStatus(deploy.StateCancelled)
				st.CancelledBy = ptr("oidc:" + h)
				return st
			}},
			{"rejected by", chat.Event{Type: deploy.NoticeFinished, State: "REJECTED"}, func(h string) deploy.Status {
				st := baseStatus(deploy.StateRejected)
				st.Approval = &deploy.StatusApproval{Required: 1, Approvals: []deploy.Approval{{Identity: "oidc:" + h}}}
				return st
			}},
			{"approval groups", chat.Event{Type: deploy.NoticeApproval}, func(h string) deploy.Status {
				st := baseStatus(deploy.StateAwaitingApproval)
				st.Approval = &deploy.StatusApproval{Required: 1, Groups: []string{h}}
				return st
			}},
			{"deploy ID", chat.Event{Type: deploy.NoticeStarted}, func(string) deploy.Status {
				st := baseStatus(deploy.StatePending)
				st.ID = "evil.example.com"
				return st
			}},
		} {
			t.Run(tc.name+"/"+h, func(t *testing.T) {
				msg, ok := chat.Compose(tc.ev, tc.st(h), "")
				if !ok {
					t.Fatal("no message")
				}
				texts := []string{msg.Text}
				for _, b := range msg.Blocks {
					if b.Text != nil && b.Text.Type == "mrkdwn" {
						texts = append(texts, b.Text.Text)
					}
					for _, e := range b.Elements {
						if s, ok := e.Text.(string); ok && e.Type == "mrkdwn" {
							texts = append(texts, s)
						}
					}
				}
				quoted := false
				for _, text := range texts {
					spans := strings.Split(text, "`")
					if len(spans)%2 == 0 {
						t.Errorf("unbalanced code span in %q", text)
					}
					for i, s := range spans {
						if i%2 == 0 && strings.Contains(s, "evil.example") {
							t.Errorf("deploy data outside inline code, where Slack links it: %q", text)
						}
						if i%2 == 1 && strings.Contains(s, "evil.example") {
							quoted = true
						}
					}
				}
				if !quoted {
					t.Errorf("the message does not quote the data: %q", texts)
				}
			})
		}
	}
}
