package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/notify/chat"
)

const slackSecret = "8f742231b10e8888abcd99yyyzzz85a5"

var chatTokens = map[string]string{"admin": "t-admin", "ci": "t-ci", "alice": "t-alice", "bob": "t-bob", "carol": "t-carol"}

// chatConfig is a server whose demo/hello/staging and acme/hello/staging
// deploys need two approvals, with a Slack app that maps alice, bob (from
// one workspace only), ci (the requester) and carol (who may only read).
func chatConfig(t *testing.T) string {
	t.Helper()
	configPath, target := demoConfig(t)
	dir := filepath.Dir(configPath)
	files := map[string]string{
		"manent.yml": fmt.Sprintf(`server:
  executor_id: test
  default_tenant: demo
  work_dir: work
  public_url: https://manent.example.com
auth:
  tokens:
    - {name: admin, sha256: %s}
    - {name: ci, sha256: %s, groups: [ci]}
    - {name: alice, sha256: %s, groups: [approvers]}
    - {name: bob, sha256: %s, groups: [approvers]}
    - {name: carol, sha256: %s, groups: [viewers]}
rbac:
  policy: |
    p, token:admin, *, *, admin
    p, group:ci, demo, hello/*, deployment.submit
    p, group:ci, demo, hello/*, deployment.read
    p, group:ci, demo, hello/*, deployment.approve
    p, group:approvers, demo, hello/*, deployment.read
    p, group:approvers, demo, hello/*, deployment.approve
    p, group:viewers, demo, hello/*, deployment.read
envconfig:
  dir: envconfig
artifacts:
  sources: ["file:"]
  file_root: artifacts
pipeline:
  retry_interval: 10ms
  retry_max_interval: 100ms
queues:
  poll_interval: 20ms
governance:
  approvals:
    - name: two-of-them
      match: {application: hello, environment: staging}
      count: 2
      expiry: 24h
notifications:
  chat:
    - type: slack
      webhook_ref: env:MANENT_SECRET_CHAT_WEBHOOK
      signing_secret_ref: file:slack-signing
      users:
        - {slack: U0ALICE, identity: token:alice}
        - {slack: U0BOB, team: T0ACME, identity: token:bob}
        - {slack: U0CI, identity: token:ci}
        - {slack: U0CAROL, identity: token:carol}
`, hash(chatTokens["admin"]), hash(chatTokens["ci"]), hash(chatTokens["alice"]), hash(chatTokens["bob"]), hash(chatTokens["carol"])),
		"slack-signing":                    slackSecret + "\n",
		"envconfig/acme/hello/staging.yml": "plugin: local\ntargets:\n  - path: " + target + "-acme\n",
	}
	for name, body := range files {
		write(t, filepath.Join(dir, name), body)
	}
	return configPath
}

// click is what Slack posts when user (of team) clicks action on the
// message of deploy id.
func click(user, team, action, id string) string {
	value, _ := json.Marshal(chat.ActionValue{Deployment: id})
	p, _ := json.Marshal(map[string]any{
		"type": "block_actions", "user": map[string]string{"id": user, "team_id": team}, "team": map[string]string{"id": team},
		"actions": []map[string]string{{"action_id": action, "value": string(value), "type": "button"}},
	})
	return url.Values{"payload": {string(p)}}.Encode()
}

type slackAnswer struct {
	status int
	text   string
}

// postAction posts body to the actions endpoint signed with secret at ts.
func postAction(t *testing.T, srv *Server, secret string, ts time.Time, body string, header ...string) slackAnswer {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL()+"/api/v1/chat/slack/actions", strings.NewReader(body))
	stamp := strconv.FormatInt(ts.Unix(), 10)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Slack-Request-Timestamp", stamp)
	req.Header.Set("X-Slack-Signature", chat.Sign(secret, stamp, []byte(body)))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		ResponseType string `json:"response_type"`
		Text         string `json:"text"`
	}
	_ = json.Unmarshal(raw, &out)
	if resp.StatusCode == http.StatusOK && len(raw) > 0 && out.ResponseType != "ephemeral" {
		t.Errorf("answer %s, want an ephemeral message", raw)
	}
	return slackAnswer{status: resp.StatusCode, text: out.Text}
}

// approvers reads, as the admin, who approved a deploy and its state.
func approvers(t *testing.T, srv *Server, id string) (string, []string) {
	t.Helper()
	resp, body := request(t, "GET", srv.URL()+"/api/v1/deployments/"+id, chatTokens["admin"], "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status of %s: %d %s", id, resp.StatusCode, body)
	}
	var st struct {
		State    string `json:"state"`
		Approval struct {
			Approvals []struct {
				Identity string `json:"identity"`
				Approved bool   `json:"approved"`
				Comment  string `json:"comment"`
			} `json:"approvals"`
		} `json:"approval"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatal(err)
	}
	var who []string
	for _, a := range st.Approval.Approvals {
		if a.Comment != "from Slack" {
			t.Errorf("approval by %s has comment %q, want from Slack", a.Identity, a.Comment)
		}
		verb := "approved"
		if !a.Approved {
			verb = "rejected"
		}
		who = append(who, a.Identity+" "+verb)
	}
	return st.State, who
}

func submitAwaiting(t *testing.T, srv *Server, token, descriptor string) {
	t.Helper()
	resp, body := request(t, "POST", srv.URL()+"/api/v1/deployments", token, descriptor)
	var sub submitted
	if resp.StatusCode != http.StatusAccepted || json.Unmarshal(body, &sub) != nil || sub.State != "AWAITING_APPROVAL" {
		t.Fatalf("submit: %d %s", resp.StatusCode, body)
	}
}

func TestSlackActions(t *testing.T) {
	srv := startServer(t, chatConfig(t))
	const id, other, rejected = "hello-chat-1", "acme-chat-1", "hello-chat-2"
	submitAwaiting(t, srv, chatTokens["ci"], fmt.Sprintf(helloDescriptor, id))
	submitAwaiting(t, srv, chatTokens["ci"], fmt.Sprintf(helloDescriptor, rejected))
	submitAwaiting(t, srv, chatTokens["admin"], "tenant: acme\n"+fmt.Sprintf(helloDescriptor, other))
	now := time.Now()

	for _, tc := range []struct {
		name    string
		secret  string
		ts      time.Time
		body    string
		status  int
		text    string
		deploy  string
		wantNow []string
	}{
		{name: "forged signature", secret: "not-the-signing-secret", ts: now, body: click("U0ALICE", "T0ACME", chat.ActionApprove, id),
			status: http.StatusUnauthorized, deploy: id},
		{name: "stale timestamp", secret: slackSecret, ts: now.Add(-6 * time.Minute), body: click("U0ALICE", "T0ACME", chat.ActionApprove, id),
			status: http.StatusUnauthorized, deploy: id},
		{name: "timestamp from the future", secret: slackSecret, ts: now.Add(6 * time.Minute), body: click("U0ALICE", "T0ACME", chat.ActionApprove, id),
			status: http.StatusUnauthorized, deploy: id},
		{name: "unknown user", secret: slackSecret, ts: now, body: click("U0NOBODY", "T0ACME", chat.ActionApprove, id),
			status: http.StatusOK, text: "not linked to a manent identity", deploy: id},
		{name: "mapped user from another workspace", secret: slackSecret, ts: now, body: click("U0BOB", "T0OTHER", chat.ActionApprove, id),
			status: http.StatusOK, text: "not linked to a manent identity", deploy: id},
		{name: "self-approval", secret: slackSecret, ts: now, body: click("U0CI", "T0ACME", chat.ActionApprove, id),
			status: http.StatusOK, text: "another identity must approve it", deploy: id},
		{name: "without deployment.approve", secret: slackSecret, ts: now, body: click("U0CAROL", "T0ACME", chat.ActionApprove, id),
			status: http.StatusOK, text: "does not hold deployment.approve", deploy: id},
		{name: "another tenant's deploy", secret: slackSecret, ts: now, body: click("U0ALICE", "T0ACME", chat.ActionApprove, other),
			status: http.StatusOK, text: "has no deployment `acme-chat-1` that you may see", deploy: other},
		{name: "a deploy that does not exist", secret: slackSecret, ts: now, body: click("U0ALICE", "T0ACME", chat.ActionApprove, "nothing-here"),
			status: http.StatusOK, text: "has no deployment `nothing-here` that you may see"},
		{name: "the Open button", secret: slackSecret, ts: now, body: click("U0ALICE", "T0ACME", chat.ActionOpen, id),
			status: http.StatusOK, deploy: id},
		{name: "first approval", secret: slackSecret, ts: now, body: click("U0ALICE", "T0ACME", chat.ActionApprove, id),
			status: http.StatusOK, text: "You approved `hello-chat-1`: 1 of 2 approval(s) given", deploy: id, wantNow: []string{"token:alice approved"}},
		{name: "Slack's retry of it", secret: slackSecret, ts: now, body: click("U0ALICE", "T0ACME", chat.ActionApprove, id),
			status: http.StatusOK, text: "already approved", deploy: id, wantNow: []string{"token:alice approved"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := postAction(t, srv, tc.secret, tc.ts, tc.body, "X-Slack-Retry-Num", "1")
			if got.status != tc.status || !strings.Contains(got.text, tc.text) {
				t.Errorf("answer %d %q, want %d with %q", got.status, got.text, tc.status, tc.text)
			}
			if tc.deploy == "" {
				return
			}
			state, who := approvers(t, srv, tc.deploy)
			if state != "AWAITING_APPROVAL" || !slices.Equal(who, tc.wantNow) {
				t.Errorf("%s is %s approved by %v, want AWAITING_APPROVAL approved by %v", tc.deploy, state, who, tc.wantNow)
			}
		})
	}

	// bob double-clicks: two requests at once record one approval, the
	// second, and the deploy leaves AWAITING_APPROVAL and runs.
	var wg sync.WaitGroup
	answers := make([]slackAnswer, 2)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = postAction(t, srv, slackSecret, now, click("U0BOB", "T0ACME", chat.ActionApprove, id))
		}()
	}
	wg.Wait()
	texts := []string{answers[0].text, answers[1].text}
	slices.Sort(texts)
	// The answer says what the approval did, or, when the wait already
	// moved the deploy on, what it is now.
	approved := texts[0] == "You approved `hello-chat-1`: 2 of 2 approval(s) given, it goes on." ||
		(strings.HasPrefix(texts[0], "You approved `hello-chat-1`: it is now ") && !strings.Contains(texts[0], "AWAITING_APPROVAL"))
	if !approved || !strings.Contains(texts[1], "already approved") {
		t.Errorf("double click answers %q, want one approval and one already approved", texts)
	}
	states := followSSE(t, srv.URL()+"/api/v1/deployments/"+id+"/events", chatTokens["admin"])
	if states[len(states)-1] != "SUCCESS" {
		t.Errorf("states %v, want to end SUCCESS after two approvals", states)
	}
	if _, who := approvers(t, srv, id); !slices.Equal(who, []string{"token:alice approved", "token:bob approved"}) {
		t.Errorf("approved by %v, want alice and bob once each", who)
	}

	// A rejection from Slack ends the deploy REJECTED.
	if got := postAction(t, srv, slackSecret, now, click("U0BOB", "T0ACME", chat.ActionReject, rejected)); !strings.Contains(got.text, "You rejected `hello-chat-2`: it is now REJECTED") {
		t.Errorf("reject answer %q", got.text)
	}
	if state, who := approvers(t, srv, rejected); state != "REJECTED" || !slices.Equal(who, []string{"token:bob rejected"}) {
		t.Errorf("%s is %s with %v, want REJECTED by bob", rejected, state, who)
	}
	if _, who := approvers(t, srv, other); len(who) != 0 {
		t.Errorf("%s approved by %v, want no one", other, who)
	}
	checkChatAudit(t, srv)
}

// checkChatAudit reads the audit entries of the Slack answers: each with
// the Slack user and the identity it was taken for.
func checkChatAudit(t *testing.T, srv *Server) {
	t.Helper()
	var out struct {
		AuditEntries struct {
			Nodes []struct {
				Actor   string         `json:"actor"`
				Action  string         `json:"action"`
				Target  string         `json:"target"`
				Details map[string]any `json:"details"`
			} `json:"nodes"`
		} `json:"auditEntries"`
	}
	codes := graphQL(t, srv, chatTokens["admin"], `query { auditEntries(filter: {action: "chat.slack.*"}, first: 100) {
		nodes { actor action target details } } }`, nil, &out)
	if len(codes) > 0 {
		t.Fatalf("auditEntries: %v", codes)
	}
	var got []string
	for _, e := range out.AuditEntries.Nodes {
		got = append(got, fmt.Sprintf("%s %s %s %v %v %v", e.Actor, e.Action, e.Target, e.Details["slack_user"], e.Details["identity"], e.Details["outcome"]))
	}
	slices.Sort(got)
	want := []string{
		"slack:U0BOB chat.slack.approve.refused hello-chat-1 U0BOB <nil> refused",
		"slack:U0NOBODY chat.slack.approve.refused hello-chat-1 U0NOBODY <nil> refused",
		"token:alice chat.slack.approve hello-chat-1 U0ALICE token:alice already",
		"token:alice chat.slack.approve hello-chat-1 U0ALICE token:alice approved",
		"token:alice chat.slack.approve.refused acme-chat-1 U0ALICE token:alice refused",
		"token:alice chat.slack.approve.refused nothing-here U0ALICE token:alice refused",
		"token:bob chat.slack.approve hello-chat-1 U0BOB token:bob already",
		"token:bob chat.slack.approve hello-chat-1 U0BOB token:bob approved",
		"token:bob chat.slack.reject hello-chat-2 U0BOB token:bob rejected",
		"token:carol chat.slack.approve.refused hello-chat-1 U0CAROL token:carol refused",
		"token:ci chat.slack.approve.refused hello-chat-1 U0CI token:ci refused",
	}
	if !slices.Equal(got, want) {
		t.Errorf("audit of the Slack answers:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSlackActionsBodyLimit(t *testing.T) {
	srv := startServer(t, chatConfig(t))
	body := "payload=" + strings.Repeat("a", 300<<10)
	if got := postAction(t, srv, slackSecret, time.Now(), body); got.status != http.StatusRequestEntityTooLarge {
		t.Errorf("a 300 KiB request: %d, want 413", got.status)
	}
}

// waitSSE reads a deploy's events until a state event satisfies done.
func waitSSE(t *testing.T, url, token string, done func(raw []byte) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == "state":
			if done([]byte(strings.TrimPrefix(line, "data: "))) {
				return
			}
		}
	}
	t.Fatalf("the stream ended before the state awaited (%v)", sc.Err())
}

// TestSlackWaveApproval: the button of a wave's approval answers that
// wave, and the deploy's own button no longer answers anything.
func TestSlackWaveApproval(t *testing.T) {
	configPath := chatConfig(t)
	dir := filepath.Dir(configPath)
	write(t, filepath.Join(dir, "envconfig/demo/hello/fleet.yml"), fmt.Sprintf(`plugin: local
targets:
  - {path: %[1]s/w1}
  - {path: %[1]s/w2}
rollout:
  waves:
    - {name: first, count: 1}
    - {name: second, approval: true}
`, filepath.Join(dir, "fleet")))
	srv := startServer(t, configPath)
	const id = "fleet-chat-1"
	descriptor := strings.Replace(fmt.Sprintf(helloDescriptor, id), "environment: staging", "environment: fleet", 1)
	resp, body := request(t, "POST", srv.URL()+"/api/v1/deployments", chatTokens["ci"], descriptor)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: %d %s", resp.StatusCode, body)
	}
	events := srv.URL() + "/api/v1/deployments/" + id + "/events"
	waitSSE(t, events, chatTokens["admin"], func(raw []byte) bool {
		var st struct {
			Rollout *struct {
				Waves []struct {
					State string `json:"state"`
				} `json:"waves"`
			} `json:"rollout"`
		}
		return json.Unmarshal(raw, &st) == nil && st.Rollout != nil && len(st.Rollout.Waves) == 2 &&
			st.Rollout.Waves[1].State == "awaiting_approval"
	})

	if got := postAction(t, srv, slackSecret, time.Now(), click("U0ALICE", "T0ACME", chat.ActionApprove, id)); !strings.Contains(got.text, "This approval request of `fleet-chat-1` is over") {
		t.Errorf("the deploy's own button on a wave's request: %q", got.text)
	}
	value, _ := json.Marshal(chat.ActionValue{Deployment: id, Pass: 2})
	p, _ := json.Marshal(map[string]any{"type": "block_actions", "user": map[string]string{"id": "U0ALICE"}, "team": map[string]string{"id": "T0ACME"},
		"actions": []map[string]string{{"action_id": chat.ActionApprove, "value": string(value)}}})
	if got := postAction(t, srv, slackSecret, time.Now(), url.Values{"payload": {string(p)}}.Encode()); !strings.HasPrefix(got.text, "You approved `fleet-chat-1`") {
		t.Errorf("the wave's button: %q", got.text)
	}
	// followSSE would insist on a state first: a stream opened on a
	// deploy with log lines sends them before its snapshot.
	final := ""
	waitSSE(t, events, chatTokens["admin"], func(raw []byte) bool {
		var st statusJSON
		if json.Unmarshal(raw, &st) != nil || !slices.Contains([]string{"SUCCESS", "ERROR", "CANCELLED"}, st.State) {
			return false
		}
		final = st.State
		return true
	})
	if final != "SUCCESS" {
		t.Errorf("ended %s, want SUCCESS once the wave is approved", final)
	}
	_, body = request(t, "GET", srv.URL()+"/api/v1/deployments/"+id, chatTokens["admin"], "")
	var st struct {
		Rollout struct {
			Waves []struct {
				Approval *struct {
					Approvals []struct {
						Identity string `json:"identity"`
						Pass     int    `json:"pass"`
					} `json:"approvals"`
				} `json:"approval"`
			} `json:"waves"`
		} `json:"rollout"`
	}
	if err := json.Unmarshal(body, &st); err != nil || len(st.Rollout.Waves) != 2 || st.Rollout.Waves[1].Approval == nil ||
		len(st.Rollout.Waves[1].Approval.Approvals) != 1 || st.Rollout.Waves[1].Approval.Approvals[0].Identity != "token:alice" {
		t.Errorf("wave approvals in %s, want alice's alone", body)
	}
}
