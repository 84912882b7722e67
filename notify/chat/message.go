package chat

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

// Message is the body of an incoming webhook: Text is the fallback of
// notifications and old clients, Blocks the message itself.
type Message struct {
	Text   string  `json:"text"`
	Blocks []Block `json:"blocks"`
}

// Block is a Slack layout block: a section, a context or actions.
type Block struct {
	Type     string    `json:"type"`
	BlockID  string    `json:"block_id,omitempty"`
	Text     *Text     `json:"text,omitempty"`
	Elements []Element `json:"elements,omitempty"`
}

// Text is a text object: mrkdwn (escaped) or plain_text.
type Text struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Element is an element of a context block (a text) or of an actions
// block (a button).
type Element struct {
	Type     string `json:"type"`
	Text     any    `json:"text,omitempty"`
	ActionID string `json:"action_id,omitempty"`
	Value    string `json:"value,omitempty"`
	Style    string `json:"style,omitempty"`
	URL      string `json:"url,omitempty"`
}

// The action_ids of the buttons of an approval request.
const (
	ActionApprove = "manent.approve"
	ActionReject  = "manent.reject"
	ActionOpen    = "manent.open"
)

// ActionValue is the value of an Approve or Reject button: what it
// answers. Pass is the wave, 0 for the deploy's own approval.
type ActionValue struct {
	Deployment string `json:"deployment"`
	Pass       int    `json:"pass,omitempty"`
}

// Lengths of what a message quotes: Slack refuses a section over 3000
// characters, and a chat message is no place for a whole stack trace.
const (
	maxName  = 100
	maxError = 1000
)

// DeployLink is the web page of a deploy, where its approval is answered;
// "" without a public URL, as the server cannot know the address its
// users reach it at.
func DeployLink(publicURL, id string) string {
	if publicURL == "" {
		return ""
	}
	return strings.TrimRight(publicURL, "/") + "/deployments/" + url.PathEscape(id)
}

// Compose builds the message of ev, false when ev has none (see kind).
// It quotes names, the version, identities, a failed step and its error,
// all escaped, the free text of them as inline code (literal), and never
// an output, a parameter or a URL's query.
func Compose(ev Event, st deploy.Status, link string) (Message, bool) {
	k := kind(ev, st)
	if k == "" {
		return Message{}, false
	}
	head := fmt.Sprintf("%s *%s* %s to *%s*", icons[k], escape(st.Application, maxName),
		literal(st.Artifact.Version, maxName), escape(st.Environment, maxName))
	var line, detail string
	switch k {
	case config.ChatStarted:
		line = "started"
	case config.ChatApproval:
		line, detail = approvalLines(ev, st)
	case config.ChatSuccess:
		line = "succeeded"
	case config.ChatRollback:
		line = "failed and was rolled back: " + rollbackOutcome(st)
		detail = failedDetail(ev, st)
	case config.ChatFailure:
		line, detail = failureLines(ev, st)
	}
	text := head + " " + line
	blocks := []Block{{Type: "section", Text: &Text{Type: "mrkdwn", Text: text}}}
	if detail != "" {
		blocks = append(blocks, Block{Type: "section", Text: &Text{Type: "mrkdwn", Text: detail}})
	}
	blocks = append(blocks, Block{Type: "context", Elements: []Element{{Type: "mrkdwn", Text: contextLine(ev, st)}}})
	switch {
	case k == config.ChatApproval:
		blocks = append(blocks, approvalActions(ev, st, link))
	case link != "":
		blocks = append(blocks, Block{Type: "actions", Elements: []Element{openButton(link)}})
	}
	return Message{Text: text, Blocks: blocks}, true
}

var icons = map[string]string{
	config.ChatStarted: ":rocket:", config.ChatApproval: ":raised_hand:", config.ChatSuccess: ":white_check_mark:",
	config.ChatRollback: ":rewind:", config.ChatFailure: ":x:",
}

// contextLine names the deploy and, when the event has one, its time in
// the reader's own time zone: a message retried after Slack failed may
// arrive after the messages of later events of the deploy, and says when
// it happened.
func contextLine(ev Event, st deploy.Status) string {
	line := fmt.Sprintf("%s · tenant %s · requested by %s", literal(st.ID, maxName), escape(st.Tenant, maxName),
		literal(st.Requester, maxName))
	if !ev.At.IsZero() {
		line += fmt.Sprintf(" · <!date^%d^{date_short_pretty} {time_secs}|%s>", ev.At.Unix(), ev.At.UTC().Format(time.RFC3339))
	}
	return line
}

func approvalLines(ev Event, st deploy.Status) (string, string) {
	line := "awaits approval"
	if p := pass(ev); p > 0 {
		line = fmt.Sprintf("awaits the approval of wave %d", p)
	}
	a := st.Approval
	if a == nil || pass(ev) > 0 {
		// A wave's answers are in its rollout's section, not counted here:
		// its page shows them.
		return line, ""
	}
	given := 0
	for _, ap := range a.Approvals {
		if ap.Approved {
			given++
		}
	}
	detail := fmt.Sprintf("%d of %d approval(s) given", given, a.Required)
	if len(a.Groups) > 0 {
		detail += ", from " + literal(strings.Join(a.Groups, ", "), maxName)
	}
	if a.ExpiresAt != nil {
		detail += fmt.Sprintf("; expires <!date^%d^{date_short_pretty} {time}|%s>", a.ExpiresAt.Unix(),
			a.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return line, detail
}

func approvalActions(ev Event, st deploy.Status, link string) Block {
	value, _ := json.Marshal(ActionValue{Deployment: st.ID, Pass: pass(ev)})
	els := []Element{
		{Type: "button", Text: Text{Type: "plain_text", Text: "Approve"}, ActionID: ActionApprove, Value: string(value), Style: "primary"},
		{Type: "button", Text: Text{Type: "plain_text", Text: "Reject"}, ActionID: ActionReject, Value: string(value), Style: "danger"},
	}
	if link != "" {
		els = append(els, openButton(link))
	}
	return Block{Type: "actions", BlockID: "manent.approval", Elements: els}
}

func openButton(link string) Element {
	return Element{Type: "button", Text: Text{Type: "plain_text", Text: "Open in manent"}, ActionID: ActionOpen,
		URL: deploy.RedactURL(link)}
}

// failureLines says how a deploy failed, or ended without succeeding.
func failureLines(ev Event, st deploy.Status) (string, string) {
	if ev.Type == deploy.NoticeStep {
		return "failed at step *" + escape(ev.Step, maxName) + "*", failedDetail(ev, st)
	}
	switch deploy.State(ev.State) {
	case deploy.StateCancelled:
		by := "was cancelled"
		if st.CancelledBy != nil {
			by += " by " + literal(*st.CancelledBy, maxName)
		}
		return by, ""
	case deploy.StateRejected:
		return "was rejected", rejectionDetail(st)
	case deploy.StateExpired:
		return "expired before it was approved", ""
	case deploy.StateDependencyFailed:
		return "will not run: a deploy it waited for did not succeed", errorDetail(st.Error)
	case deploy.StateError:
		return "failed", failedDetail(ev, st)
	}
	return "ended " + literal(ev.State, maxName), errorDetail(st.Error)
}

func rejectionDetail(st deploy.Status) string {
	if st.Approval == nil {
		return ""
	}
	for _, ap := range st.Approval.Approvals {
		if !ap.Approved {
			return "by " + literal(ap.Identity, maxName)
		}
	}
	return ""
}

// failedDetail names the failed step and quotes its error: the step of a
// step event, else the deploy's last failed run.
func failedDetail(ev Event, st deploy.Status) string {
	var failed *deploy.StatusStep
	for i := range st.Steps {
		s := &st.Steps[i]
		if s.Kind != deploy.KindRun || s.State != deploy.StepError {
			continue
		}
		if ev.Type == deploy.NoticeStep && s.Name != ev.Step {
			continue
		}
		failed = s
	}
	if failed == nil || failed.Error == nil {
		return errorDetail(st.Error)
	}
	return fmt.Sprintf("*%s* (attempt %d): %s", escape(failed.Name, maxName), failed.Attempts, literal(*failed.Error, maxError))
}

func errorDetail(e *string) string {
	if e == nil || *e == "" {
		return ""
	}
	return literal(*e, maxError)
}

func rollbackOutcome(st deploy.Status) string {
	switch st.Rollback.State {
	case deploy.RollbackCompleted:
		return "the release before is back in service"
	case deploy.RollbackFailed:
		return "*the rollback failed too*, the environment needs a look"
	}
	return "the rollback is running"
}
