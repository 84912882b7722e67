package config

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"

	"manent.dev/manent/descriptor"
	"manent.dev/manent/internal/yamltree"
)

// Notifications is where manent tells people about deploys (docs/chat.md).
type Notifications struct {
	Chat []ChatTarget `yaml:"chat"`
}

// Chat target types.
const ChatSlack = "slack"

// The events a chat target may ask for.
const (
	ChatStarted  = "started"
	ChatFailure  = "failure"
	ChatRollback = "rollback"
	ChatSuccess  = "success"
	ChatApproval = "approval"
)

// ChatEvents lists every chat event, the default of events.
var ChatEvents = []string{ChatStarted, ChatFailure, ChatRollback, ChatSuccess, ChatApproval}

// ChatTarget is one entry of notifications.chat: a Slack-compatible
// incoming webhook and, with SigningSecretRef, the Slack app whose
// Approve and Reject buttons answer approvals.
type ChatTarget struct {
	// Name, when set, is the target's key (see Key).
	Name string `yaml:"name"`
	Type string `yaml:"type"`
	// WebhookRef is a secret reference to the incoming webhook's URL: the
	// URL itself lets anyone post to the channel.
	WebhookRef string `yaml:"webhook_ref"`
	// AllowHTTP lets the webhook be http:// (a local receiver); https is
	// required otherwise, except under manent-server dev.
	AllowHTTP bool `yaml:"allow_http"`
	// Applications are tenant/application, or tenant/* for every
	// application of a tenant; empty, every one.
	Applications []string `yaml:"applications"`
	// Environments are environment names; empty, every one.
	Environments []string `yaml:"environments"`
	// Events are of ChatEvents; empty, all of them.
	Events []string `yaml:"events"`
	// Users map the Slack users who may answer approvals from the chat to
	// manent identities; no one else may.
	Users []ChatUser `yaml:"users"`
	// SigningSecretRef is a secret reference to the Slack app's signing
	// secret, which signs its interactivity requests.
	SigningSecretRef string `yaml:"signing_secret_ref"`
}

// ChatUser maps a Slack user to a manent identity.
type ChatUser struct {
	// Slack is the user's ID (U0123ABCD); Team, when set, the ID of the
	// workspace it must come from (T0123ABCD).
	Slack string `yaml:"slack"`
	Team  string `yaml:"team"`
	// Identity is token:<name> or oidc:<user>.
	Identity string `yaml:"identity"`
	// Groups are the identity's groups for the approval rules; empty for a
	// token identity, those of auth.tokens.
	Groups []string `yaml:"groups"`
}

// Key is what the engine records of the target when an event happens,
// and finds it by when the message goes out, possibly after a reload: its
// Name, else a hash of what decides where a message goes and of which
// deploys (type, webhook_ref, applications, environments). An index would
// name another target once the list is reordered; a target whose key is
// gone gets no message of the deploys it was chosen for.
func (t ChatTarget) Key() string {
	if t.Name != "" {
		return t.Name
	}
	h := sha256.New()
	for _, part := range [][]string{{t.Type, t.WebhookRef}, sortedCopy(t.Applications), sortedCopy(t.Environments)} {
		for _, s := range part {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	// A name is of a-z, 0-9 and -: a derived key, with its ':', is never one.
	return "sha256:" + hex.EncodeToString(h.Sum(nil)[:8])
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// Wants reports whether the target wants event for a deploy of
// tenant/application in environment.
func (t ChatTarget) Wants(event, tenant, application, environment string) bool {
	if len(t.Events) > 0 && !slices.Contains(t.Events, event) {
		return false
	}
	return t.Covers(tenant, application, environment)
}

// Covers reports whether a deploy of tenant/application in environment is
// one the target speaks of.
func (t ChatTarget) Covers(tenant, application, environment string) bool {
	if len(t.Environments) > 0 && !slices.Contains(t.Environments, environment) {
		return false
	}
	if len(t.Applications) == 0 {
		return true
	}
	return slices.Contains(t.Applications, tenant+"/"+application) || slices.Contains(t.Applications, tenant+"/*")
}

var (
	slackUserPattern = regexp.MustCompile(`^[UW][A-Z0-9]{2,31}$`)
	slackTeamPattern = regexp.MustCompile(`^[TE][A-Z0-9]{2,31}$`)
	identityPattern  = regexp.MustCompile(`^(token|oidc):[^\s,]{1,255}$`)
)

func (c *Config) validateNotifications(errs *yamltree.Errors) {
	tokens := map[string]bool{}
	for _, t := range c.Auth.Tokens {
		tokens["token:"+t.Name] = true
	}
	keys := map[string]int{}
	for i, t := range c.Notifications.Chat {
		p := yamltree.Index("notifications.chat", i)
		if t.Name != "" && !descriptor.ValidName(t.Name) {
			errs.Add(p+".name", "must be 1 to 63 characters of a-z, 0-9 and -")
		}
		if j, dup := keys[t.Key()]; dup {
			if t.Name != "" {
				errs.Add(p+".name", "is the name of notifications.chat[%d] too: each target's is its own", j)
			} else {
				errs.Add(p, "posts to the webhook of notifications.chat[%d] for the same deploys: give one of them a name", j)
			}
		} else {
			keys[t.Key()] = i
		}
		switch t.Type {
		case ChatSlack:
		case "":
			errs.Add(p+".type", "is required: slack")
		default:
			errs.Add(p+".type", "must be slack")
		}
		checkRef(errs, p+".webhook_ref", t.WebhookRef, true)
		checkRef(errs, p+".signing_secret_ref", t.SigningSecretRef, false)
		for j, a := range t.Applications {
			tenant, app, ok := strings.Cut(a, "/")
			if !ok || !descriptor.ValidName(tenant) || (app != "*" && !descriptor.ValidName(app)) {
				errs.Add(yamltree.Index(p+".applications", j), "must be tenant/application or tenant/*")
			}
		}
		for j, e := range t.Environments {
			if !descriptor.ValidName(e) {
				errs.Add(yamltree.Index(p+".environments", j), "must be an environment name: 1 to 63 characters of a-z, 0-9 and -")
			}
		}
		for j, e := range t.Events {
			if !slices.Contains(ChatEvents, e) {
				errs.Add(yamltree.Index(p+".events", j), "must be one of %s", strings.Join(ChatEvents, ", "))
			}
		}
		if len(t.Users) > 0 && t.SigningSecretRef == "" {
			errs.Add(p+".signing_secret_ref", "is required with users: the Slack app's signing secret is what proves an answer came from Slack")
		}
		checkChatUsers(errs, p+".users", t.Users, tokens)
	}
}

func checkChatUsers(errs *yamltree.Errors, p string, users []ChatUser, tokens map[string]bool) {
	seen := map[string]bool{}
	for j, u := range users {
		up := yamltree.Index(p, j)
		switch {
		case !slackUserPattern.MatchString(u.Slack):
			errs.Add(up+".slack", "must be a Slack user ID such as U0123ABCD (its profile, \"Copy member ID\")")
		case seen[u.Team+"/"+u.Slack]:
			errs.Add(up+".slack", "is mapped twice: one Slack user is one identity")
		}
		seen[u.Team+"/"+u.Slack] = true
		if u.Team != "" && !slackTeamPattern.MatchString(u.Team) {
			errs.Add(up+".team", "must be a Slack workspace ID such as T0123ABCD")
		}
		switch {
		case !identityPattern.MatchString(u.Identity):
			errs.Add(up+".identity", "must be token:<name> or oidc:<user>")
		case strings.HasPrefix(u.Identity, "token:") && !tokens[u.Identity]:
			errs.Add(up+".identity", "no token of auth.tokens is named %s", strings.TrimPrefix(u.Identity, "token:"))
		}
		for k, g := range u.Groups {
			if !groupPattern.MatchString(g) {
				errs.Add(yamltree.Index(up+".groups", k), "must be 1 to 128 characters of A-Z, a-z, 0-9, '.', '_', '@' and -")
			}
		}
	}
}

// checkRef checks a secret reference without ever echoing it: someone may
// have pasted the secret itself.
func checkRef(errs *yamltree.Errors, p, ref string, required bool) {
	if ref == "" {
		if required {
			errs.Add(p, "is required: a secret reference such as env:MANENT_SECRET_SLACK_WEBHOOK or file:slack-webhook")
		}
		return
	}
	scheme, rest, ok := strings.Cut(ref, ":")
	if !ok || (scheme != "env" && scheme != "file") || rest == "" || strings.HasPrefix(rest, "//") {
		errs.Add(p, "must be a secret reference such as env:MANENT_SECRET_SLACK_WEBHOOK or file:slack-webhook, not the secret")
	}
}
