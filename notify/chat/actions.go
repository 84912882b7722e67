package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/safehttp"
)

// Approver answers approvals as the identity in ctx: the service, whose
// rules (deployment.approve, never the requester, groups and roles, N of
// M, expiry) are the API's.
type Approver interface {
	Get(ctx context.Context, id string) (*deploy.Deployment, error)
	// AnswerPass answers the approval of pass (0 the deploy's own, N its
	// wave N's) and no other: ECONFLICT, with nothing recorded, when the
	// deploy no longer asks it, checked where the answer is recorded.
	AnswerPass(ctx context.Context, id string, pass int, approve bool, comment string) (*deploy.Deployment, error)
}

// Auditor appends to the audit log.
type Auditor interface {
	AppendAudit(ctx context.Context, e deploy.AuditEntry) error
}

const (
	// maxActionBody bounds an interactivity request: Slack's hold one
	// click and the message it came from.
	maxActionBody = 256 << 10
	// answerWithin is Slack's limit on the answer (3s), less a margin for
	// the way back.
	answerWithin = 2500 * time.Millisecond
	// maxIDLength is longer than any deploy ID (128 characters).
	maxIDLength = 256
	// viaSlack is the comment of an answer given from Slack.
	viaSlack = "from Slack"
)

// Audit actions of the answers given from Slack, beside the service's
// deployment.approve and deployment.reject.
const (
	AuditApprove = "chat.slack.approve"
	AuditReject  = "chat.slack.reject"
)

// Actions is the handler of POST /api/v1/chat/slack/actions, the Slack
// app's interactivity request URL. It needs no bearer token: the request
// must carry the signature of one of the configured signing secrets, and
// its user must be mapped to an identity by a target with that secret.
func (n *Notifier) Actions(svc Approver, audit Auditor, log *slog.Logger) http.Handler {
	return &actions{n: n, svc: svc, audit: audit, log: log}
}

type actions struct {
	n     *Notifier
	svc   Approver
	audit Auditor
	log   *slog.Logger
}

// payload is the part of a block_actions payload manent reads.
type payload struct {
	Type string `json:"type"`
	User struct {
		ID     string `json:"id"`
		TeamID string `json:"team_id"`
	} `json:"user"`
	Team struct {
		ID string `json:"id"`
	} `json:"team"`
	Actions []struct {
		ActionID string `json:"action_id"`
		Value    string `json:"value"`
	} `json:"actions"`
	// ResponseURL is where Slack takes a message for the user who clicked:
	// it shows nothing of the body of the answer to a button.
	ResponseURL string `json:"response_url"`
}

// click is one answer from Slack, with who gave it.
type click struct {
	user, team string
	approve    bool
	value      ActionValue
	who        deploy.Identity
	targets    []int
	respondTo  string
}

func (a *actions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxActionBody))
	if err != nil {
		writeStatus(w, http.StatusRequestEntityTooLarge, "request too large")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), answerWithin)
	defer cancel()
	ts := r.Header.Get("X-Slack-Request-Timestamp")
	if !fresh(ts, a.n.opts.Now()) {
		writeStatus(w, http.StatusUnauthorized, "stale or missing X-Slack-Request-Timestamp")
		return
	}
	verified := a.verified(ctx, ts, body, r.Header.Get("X-Slack-Signature"))
	if len(verified) == 0 {
		writeStatus(w, http.StatusUnauthorized, "invalid X-Slack-Signature")
		return
	}
	c, msg := a.parse(body)
	if msg != "" || c.value.Deployment == "" {
		// Anything but Approve and Reject (the Open button also tells the
		// app it was clicked) changes nothing.
		reply(w, msg)
		return
	}
	c.who, c.targets = a.n.identity(verified, c.user, c.team)
	if c.who.Anonymous() {
		a.record(ctx, c, "refused", deploy.Errorf(deploy.EFORBIDDEN, "slack user not mapped"))
		a.respond(ctx, w, c, "Your Slack account is not linked to a manent identity, so manent cannot take your answer. "+
			"An administrator can add you to notifications.chat[].users; until then, answer in the web interface.")
		return
	}
	a.respond(ctx, w, c, a.answer(deploy.WithIdentity(ctx, c.who), c))
}

// respond answers the click twice: in the body, as the brief answer
// Slack asks for within 3 seconds, and at the click's response_url, which
// is how Slack shows the user a message about a button.
func (a *actions) respond(ctx context.Context, w http.ResponseWriter, c click, text string) {
	reply(w, text)
	target, ok := a.n.responseURL(c.respondTo)
	if !ok {
		return
	}
	body, err := json.Marshal(ephemeral(text))
	if err != nil {
		return
	}
	a.n.pending.Add(1)
	go func() {
		defer a.n.pending.Done()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.n.opts.Timeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := safehttp.Do(a.n.opts.Client, req, maxResponse)
		if err != nil {
			// The URL holds a token of the click: logged without it.
			a.log.WarnContext(ctx, "answer a Slack click at its response_url", "error", withoutURL(err))
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close() // drained: nothing is lost
	}()
}

// responseURL is the click's response_url when it is Slack's (or under
// Options.ResponseURLPrefix): the request is signed, but manent posts
// only where Slack listens.
func (n *Notifier) responseURL(raw string) (string, bool) {
	if raw == "" || !strings.HasPrefix(raw, n.opts.ResponseURLPrefix) {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil || u.User != nil || u.Host == "" {
		return "", false
	}
	return raw, true
}

// Wait waits for the answers still being posted to response URLs.
func (n *Notifier) Wait() {
	if n != nil {
		n.pending.Wait()
	}
}

// verified lists the targets whose signing secret signed the request.
// Every secret is tried, so the time taken does not tell which matched.
func (a *actions) verified(ctx context.Context, ts string, body []byte, signature string) []int {
	var out []int
	secrets := map[string]string{}
	for i, t := range a.n.targets {
		if t.SigningSecretRef == "" {
			continue
		}
		secret, ok := secrets[t.SigningSecretRef]
		if !ok {
			v, err := a.n.opts.Resolve(ctx, t.SigningSecretRef)
			if err != nil {
				a.log.WarnContext(ctx, "the signing secret of a chat target cannot be resolved", "target", i, "error", err)
			}
			secret, secrets[t.SigningSecretRef] = v, v
		}
		if secret != "" && validSignature(secret, ts, body, signature) {
			out = append(out, i)
		}
	}
	return out
}

// parse reads the click of a block_actions payload; msg is the answer to
// anything else.
func (a *actions) parse(body []byte) (click, string) {
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return click{}, "manent could not read this request."
	}
	var p payload
	if err := json.Unmarshal([]byte(form.Get("payload")), &p); err != nil {
		return click{}, "manent could not read this request."
	}
	c := click{user: p.User.ID, team: p.Team.ID, respondTo: p.ResponseURL}
	if c.team == "" {
		c.team = p.User.TeamID
	}
	if p.Type != "block_actions" {
		return c, "manent answers only the Approve and Reject buttons of its messages."
	}
	for _, act := range p.Actions {
		if act.ActionID != ActionApprove && act.ActionID != ActionReject {
			continue
		}
		if err := json.Unmarshal([]byte(act.Value), &c.value); err != nil || !plausibleID(c.value.Deployment) || c.value.Pass < 0 {
			return c, "manent could not read this button."
		}
		c.approve = act.ActionID == ActionApprove
		return c, ""
	}
	// The Open button only opens its link; Slack still tells the app.
	return c, ""
}

// plausibleID keeps what a button names to what a deploy ID can be, so
// that nothing else reaches the service or the audit log's target.
func plausibleID(id string) bool {
	return id != "" && len(id) <= maxIDLength && deploy.UnsafeText(id, "") == "" && !strings.ContainsAny(id, " /")
}

// identity maps a Slack user through the users of the verified targets.
func (n *Notifier) identity(verified []int, user, team string) (deploy.Identity, []int) {
	var who deploy.Identity
	var targets []int
	for _, i := range verified {
		for _, u := range n.targets[i].identities {
			if u.slack != user || (u.team != "" && u.team != team) {
				continue
			}
			if who.Anonymous() {
				who = u.identity
			}
			if u.identity.Subject == who.Subject {
				targets = append(targets, i)
			}
		}
	}
	return who, targets
}

// answer applies the click as c.who and says what came of it.
func (a *actions) answer(ctx context.Context, c click) string {
	id := c.value.Deployment
	verb, done := "approve", "approved"
	if !c.approve {
		verb, done = "reject", "rejected"
	}
	d, err := a.svc.Get(ctx, id)
	if err != nil {
		a.record(ctx, c, "refused", err)
		return a.refusal(ctx, id, verb, err)
	}
	if !a.n.covers(c.targets, d) {
		err := deploy.Errorf(deploy.EFORBIDDEN, "this Slack app does not answer approvals of %s/%s in %s", d.Tenant, d.Application, d.Environment)
		a.record(ctx, c, "refused", err)
		return "manent did not " + verb + " " + quote(id) + ": " + escape(err.Error(), maxError) + "."
	}
	if awaitsAnother(d, c.value.Pass) {
		err := deploy.Errorf(deploy.ECONFLICT, "that approval request is over: the deploy now awaits another one")
		a.record(ctx, c, "refused", err)
		return "This approval request of " + quote(id) + " is over: the deploy now awaits another one, in a newer message or in the web interface."
	}
	if c.approve && answered(d, c.who.Subject, c.value.Pass) {
		a.record(ctx, c, "already", nil)
		return "You had already approved " + quote(id) + ": it counts once."
	}
	// The pass the button names, not what the deploy awaits when the
	// service reads it: the check above is of a read that may be old.
	after, err := a.svc.AnswerPass(ctx, id, c.value.Pass, c.approve, viaSlack)
	if deploy.ErrorCode(err) == deploy.ECONFLICT {
		again, gerr := a.svc.Get(ctx, id)
		switch {
		case gerr != nil:
		case c.approve && answered(again, c.who.Subject, c.value.Pass):
			// Two clicks at once: the database kept one; the other lands here.
			a.record(ctx, c, "already", nil)
			return "You had already approved " + quote(id) + ": it counts once."
		case awaitsAnother(again, c.value.Pass):
			// The deploy moved on between the reads and the answer's
			// transaction, which refused it.
			a.record(ctx, c, "refused", err)
			return "This approval request of " + quote(id) + " is over: the deploy now awaits another one, in a newer message or in the web interface."
		}
	}
	if err != nil {
		a.record(ctx, c, "refused", err)
		return a.refusal(ctx, id, verb, err)
	}
	a.record(ctx, c, done, nil)
	return "You " + done + " " + quote(id) + progress(after, c.value.Pass)
}

// awaited is what d awaits an approval for now (0 itself, or its wave's
// pass), false when it awaits none.
func awaited(d *deploy.Deployment) (int, bool) {
	if d.State == deploy.StateAwaitingApproval {
		return 0, true
	}
	if d.State == deploy.StatePending {
		if p := d.WaveAwaitingApproval(); p > 0 {
			return p, true
		}
	}
	return 0, false
}

// awaitsAnother reports whether d awaits an approval now, and not pass's.
func awaitsAnother(d *deploy.Deployment, pass int) bool {
	now, asking := awaited(d)
	return asking && now != pass
}

// answered reports whether subject's approval of pass is recorded.
func answered(d *deploy.Deployment, subject string, pass int) bool {
	list := d.Approvals
	if pass > 0 {
		list = d.WaveApprovals
	}
	return slices.ContainsFunc(list, func(a deploy.Approval) bool {
		return a.Identity == subject && a.Pass == pass && a.Approved
	})
}

// covers reports whether one of the targets that mapped the user speaks of
// d: a Slack app answers only for the deploys it is told about.
func (n *Notifier) covers(targets []int, d *deploy.Deployment) bool {
	return slices.ContainsFunc(targets, func(i int) bool {
		return n.targets[i].Covers(d.Tenant, d.Application, d.Environment)
	})
}

func progress(d *deploy.Deployment, pass int) string {
	if d == nil {
		return "."
	}
	if now, asking := awaited(d); asking && now == pass {
		st := deploy.NewStatus(d)
		if st.Approval != nil && pass == 0 {
			given := 0
			for _, ap := range st.Approval.Approvals {
				if ap.Approved {
					given++
				}
			}
			if given >= st.Approval.Required {
				// The store records the answer; the deploy's wait moves it on
				// a moment later.
				return fmt.Sprintf(": %d of %d approval(s) given, it goes on.", given, st.Approval.Required)
			}
			return fmt.Sprintf(": %d of %d approval(s) given, it still waits for more.", given, st.Approval.Required)
		}
		return ": it still waits for more approvals."
	}
	return ": it is now " + escape(string(d.State), maxName) + "."
}

// refusal says why an answer was refused, in the service's words, which
// are safe to show; a deploy the user may not read answers as a missing
// one, and an internal error only by its ID in the log.
func (a *actions) refusal(ctx context.Context, id, verb string, err error) string {
	var de *deploy.Error
	switch {
	case errors.As(err, &de) && de.Code == deploy.ENOTFOUND:
		return "manent has no deployment " + quote(id) + " that you may see."
	case errors.As(err, &de) && (de.Code == deploy.EFORBIDDEN || de.Code == deploy.ECONFLICT || de.Code == deploy.EUNPROCESSABLE):
		return "manent did not " + verb + " " + quote(id) + ": " + escape(de.Message, maxError) + "."
	case errors.Is(err, context.DeadlineExceeded):
		return "manent took too long to record your answer to " + quote(id) + ": look at the deploy in the web interface before trying again."
	}
	a.log.ErrorContext(ctx, "answer an approval from Slack", "deployment", id, "error", err)
	return "manent could not record your answer to " + quote(id) + ": try again, or answer in the web interface."
}

// record writes the audit entry of a click: the Slack user and the
// identity it was taken for, and what came of it.
func (a *actions) record(ctx context.Context, c click, outcome string, err error) {
	action := AuditApprove
	if !c.approve {
		action = AuditReject
	}
	details := map[string]any{"slack_user": c.user, "slack_team": c.team, "outcome": outcome}
	if c.value.Pass > 0 {
		details["pass"] = c.value.Pass
	}
	actor := c.who.Subject
	if actor == "" {
		actor = "slack:" + c.user
	} else {
		details["identity"] = actor
	}
	var de *deploy.Error
	if err != nil {
		action += ".refused"
		if errors.As(err, &de) {
			details["code"], details["error"] = string(de.Code), de.Message
		} else {
			details["error"] = "internal error"
		}
	}
	// The audit outlives the request: a click whose answer timed out is
	// still recorded.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	e := deploy.AuditEntry{Time: time.Now().UTC(), Actor: actor, Action: action, Target: c.value.Deployment, Details: details}
	if err := a.audit.AppendAudit(ctx, e); err != nil {
		a.log.ErrorContext(ctx, "append the audit entry of a Slack answer", "action", action, "error", err)
	}
}

func quote(id string) string { return literal(id, maxName) }

// reply is the answer Slack shows the user who clicked, and only them.
func reply(w http.ResponseWriter, text string) {
	if text == "" {
		w.WriteHeader(http.StatusOK)
		return
	}
	writeJSON(w, http.StatusOK, ephemeral(text))
}

// ephemeral is a message only the user who clicked sees, below the
// message they clicked on, which stays as it was for the other approvers.
func ephemeral(text string) map[string]any {
	return map[string]any{"response_type": "ephemeral", "replace_original": false, "text": text}
}

func writeStatus(w http.ResponseWriter, status int, text string) {
	writeJSON(w, status, map[string]any{"error": text})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client went away: nothing to do
}
