package config_test

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"manent.dev/manent/config"
)

func TestNotificationsChat(t *testing.T) {
	const tokens = "auth:\n  tokens:\n    - {name: alice, sha256: " +
		"0000000000000000000000000000000000000000000000000000000000000000}\n"
	for _, tc := range []struct {
		name string
		doc  string
		want []config.ChatTarget
		errs []string
	}{
		{name: "none", doc: "{}\n"},
		{name: "a full target", doc: tokens + `notifications:
  chat:
    - type: slack
      webhook_ref: env:MANENT_SECRET_SLACK
      applications: [demo/hello, other/*]
      environments: [prod]
      events: [failure, approval]
      signing_secret_ref: file:slack-signing
      users:
        - {slack: U0ALICE, team: T0ACME, identity: token:alice}
        - {slack: W0BOB, identity: oidc:bob, groups: [release-managers]}
`, want: []config.ChatTarget{{
			Type: "slack", WebhookRef: "env:MANENT_SECRET_SLACK", Applications: []string{"demo/hello", "other/*"},
			Environments: []string{"prod"}, Events: []string{"failure", "approval"}, SigningSecretRef: "file:slack-signing",
			Users: []config.ChatUser{{Slack: "U0ALICE", Team: "T0ACME", Identity: "token:alice"},
				{Slack: "W0BOB", Identity: "oidc:bob", Groups: []string{"release-managers"}}},
		}}},
		{name: "every problem with its path", doc: `notifications:
  chat:
    - type: teams
      webhook_ref: https://hooks.slack.com/services/T/B/X
      applications: [hello, demo/Bad]
      environments: [Prod]
      events: [finished]
      users:
        - {slack: alice, identity: alice, groups: ["a b"]}
        - {slack: U0BOB, team: acme, identity: token:nobody}
        - {slack: U0BOB, team: acme, identity: oidc:bob}
      colour: red
    - {}
`, errs: []string{
			"notifications.chat[0].colour: unknown field",
			"notifications.chat[0].type: must be slack",
			"notifications.chat[0].webhook_ref: must be a secret reference such as env:MANENT_SECRET_SLACK_WEBHOOK or file:slack-webhook, not the secret",
			"notifications.chat[0].applications[0]: must be tenant/application or tenant/*",
			"notifications.chat[0].applications[1]: must be tenant/application or tenant/*",
			"notifications.chat[0].environments[0]: must be an environment name: 1 to 63 characters of a-z, 0-9 and -",
			"notifications.chat[0].events[0]: must be one of started, failure, rollback, success, approval",
			"notifications.chat[0].signing_secret_ref: is required with users: the Slack app's signing secret is what proves an answer came from Slack",
			"notifications.chat[0].users[0].slack: must be a Slack user ID such as U0123ABCD (its profile, \"Copy member ID\")",
			"notifications.chat[0].users[0].identity: must be token:<name> or oidc:<user>",
			"notifications.chat[0].users[0].groups[0]: must be 1 to 128 characters of A-Z, a-z, 0-9, '.', '_', '@' and -",
			"notifications.chat[0].users[1].team: must be a Slack workspace ID such as T0123ABCD",
			"notifications.chat[0].users[1].identity: no token of auth.tokens is named nobody",
			"notifications.chat[0].users[2].slack: is mapped twice: one Slack user is one identity",
			"notifications.chat[0].users[2].team: must be a Slack workspace ID such as T0123ABCD",
			"notifications.chat[1].type: is required: slack",
			"notifications.chat[1].webhook_ref: is required: a secret reference such as env:MANENT_SECRET_SLACK_WEBHOOK or file:slack-webhook",
		}},
		{name: "keys that are not each target's own", doc: `notifications:
  chat:
    - {type: slack, webhook_ref: env:MANENT_SECRET_A, applications: [demo/*, acme/*]}
    - {type: slack, webhook_ref: env:MANENT_SECRET_A, applications: [acme/*, demo/*], events: [failure]}
    - {name: ops, type: slack, webhook_ref: env:MANENT_SECRET_A, applications: [demo/*, acme/*]}
    - {name: ops, type: slack, webhook_ref: env:MANENT_SECRET_B}
    - {name: Ops Channel, type: slack, webhook_ref: env:MANENT_SECRET_C}
`, errs: []string{
			"notifications.chat[1]: posts to the webhook of notifications.chat[0] for the same deploys: give one of them a name",
			"notifications.chat[3].name: is the name of notifications.chat[2] too: each target's is its own",
			"notifications.chat[4].name: must be 1 to 63 characters of a-z, 0-9 and -",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := config.Parse([]byte(tc.doc), t.TempDir())
			if tc.errs == nil {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if !chatTargetsEqual(c.Notifications.Chat, tc.want) {
					t.Fatalf("chat = %+v, want %+v", c.Notifications.Chat, tc.want)
				}
				return
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("Parse error = %v, want a *config.Error", err)
			}
			var got []string
			for _, f := range ce.Fields {
				got = append(got, f.String())
			}
			for _, w := range tc.errs {
				if !slices.Contains(got, w) {
					t.Errorf("missing error %q", w)
				}
			}
			if len(got) != len(tc.errs) {
				t.Errorf("got %d errors, want %d:\n%v", len(got), len(tc.errs), got)
			}
		})
	}
}

func chatTargetsEqual(a, b []config.ChatTarget) bool {
	return slices.EqualFunc(a, b, func(x, y config.ChatTarget) bool {
		return x.Name == y.Name && x.Type == y.Type && x.WebhookRef == y.WebhookRef && x.AllowHTTP == y.AllowHTTP &&
			slices.Equal(x.Applications, y.Applications) && slices.Equal(x.Environments, y.Environments) &&
			slices.Equal(x.Events, y.Events) && x.SigningSecretRef == y.SigningSecretRef &&
			slices.EqualFunc(x.Users, y.Users, func(u, v config.ChatUser) bool {
				return u.Slack == v.Slack && u.Team == v.Team && u.Identity == v.Identity && slices.Equal(u.Groups, v.Groups)
			})
	})
}

// TestChatTargetKey: a target's key is its name, else a hash of its
// webhook and scope that the order of its lists does not change; its
// events, users and secrets do not make it another target.
func TestChatTargetKey(t *testing.T) {
	base := config.ChatTarget{Type: "slack", WebhookRef: "env:MANENT_SECRET_A", Applications: []string{"demo/*", "acme/hello"},
		Environments: []string{"prod", "staging"}}
	with := func(f func(*config.ChatTarget)) config.ChatTarget {
		tg := base
		f(&tg)
		return tg
	}
	for _, tc := range []struct {
		name string
		t    config.ChatTarget
		same bool
	}{
		{"the same", base, true},
		{"lists in another order", with(func(t *config.ChatTarget) {
			t.Applications, t.Environments = []string{"acme/hello", "demo/*"}, []string{"staging", "prod"}
		}), true},
		{"other events and users", with(func(t *config.ChatTarget) {
			t.Events, t.SigningSecretRef = []string{config.ChatFailure}, "file:s"
			t.Users = []config.ChatUser{{Slack: "U0ALICE", Identity: "oidc:alice"}}
		}), true},
		{"another webhook", with(func(t *config.ChatTarget) { t.WebhookRef = "env:MANENT_SECRET_B" }), false},
		{"another application", with(func(t *config.ChatTarget) { t.Applications = []string{"demo/*"} }), false},
		{"an application moved to environments", with(func(t *config.ChatTarget) {
			t.Applications, t.Environments = []string{"demo/*"}, []string{"acme/hello", "prod", "staging"}
		}), false},
		{"every environment", with(func(t *config.ChatTarget) { t.Environments = nil }), false},
	} {
		if got := tc.t.Key() == base.Key(); got != tc.same {
			t.Errorf("%s: same key = %v, want %v (%s, %s)", tc.name, got, tc.same, tc.t.Key(), base.Key())
		}
	}
	if !strings.HasPrefix(base.Key(), "sha256:") || strings.Contains(base.Key(), "MANENT_SECRET") {
		t.Errorf("derived key %q", base.Key())
	}
	if got := with(func(t *config.ChatTarget) { t.Name = "ops" }).Key(); got != "ops" {
		t.Errorf("a named target's key is %q, want its name", got)
	}
}

func TestChatTargetWants(t *testing.T) {
	target := config.ChatTarget{Applications: []string{"demo/hello", "other/*"}, Environments: []string{"prod"},
		Events: []string{config.ChatFailure}}
	for _, tc := range []struct {
		event, tenant, app, env string
		want                    bool
	}{
		{"failure", "demo", "hello", "prod", true},
		{"failure", "other", "anything", "prod", true},
		{"failure", "demo", "world", "prod", false},
		{"failure", "demo", "hello", "staging", false},
		{"success", "demo", "hello", "prod", false},
	} {
		if got := target.Wants(tc.event, tc.tenant, tc.app, tc.env); got != tc.want {
			t.Errorf("Wants(%s, %s/%s/%s) = %v, want %v", tc.event, tc.tenant, tc.app, tc.env, got, tc.want)
		}
	}
	if !(config.ChatTarget{}).Wants(config.ChatApproval, "a", "b", "c") {
		t.Error("an empty target wants nothing, want everything")
	}
}

// TestDocChatExamples parses the notifications shown in docs/chat.md and
// docs/manent-yml.md, so neither page can show what manent refuses.
func TestDocChatExamples(t *testing.T) {
	const tokens = "auth:\n  tokens:\n    - {name: bob, sha256: " +
		"0000000000000000000000000000000000000000000000000000000000000000}\n"
	found := 0
	for _, page := range []string{"../docs/chat.md", "../docs/manent-yml.md"} {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range yamlBlock.FindAllStringSubmatch(string(text), -1) {
			if !strings.HasPrefix(m[1], "notifications:") {
				continue
			}
			found++
			c, err := config.Parse([]byte(tokens+m[1]), t.TempDir())
			if err != nil {
				t.Errorf("%s: %v\n%s", page, err, m[1])
				continue
			}
			if len(c.Notifications.Chat) == 0 {
				t.Errorf("%s: no chat target in\n%s", page, m[1])
			}
		}
	}
	if found < 2 {
		t.Errorf("found %d examples, want the one of each page", found)
	}
}
