package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/chains"
	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/pgxquerier"
)

// The events of a deploy that manent reports outside itself (callbacks,
// chat). Each is recorded in the transaction of the fact it reports, as an
// event workflow enqueued on that transaction with an ID derived from the
// fact: the event exists if and only if the fact was written, and a
// transaction made again cannot record it twice. The event workflow takes
// one snapshot of the deploy's status and starts one delivery workflow per
// receiver that wants it. A deploy that nobody follows enqueues nothing.

// ChatNotifier is the chat side of the events (notify/chat implements it).
type ChatNotifier interface {
	// Wants lists the chat targets that want n for d, by stable keys
	// (never indexes: the list may be reordered before the message goes).
	Wants(n deploy.Notice, d *deploy.Deployment) []string
	// Send posts n's message to the target of key once, when it still
	// wants it; an error is retried with backoff, a deploy.Permanent one
	// is not. link is the web page of the deploy (or of its approval).
	Send(ctx context.Context, target string, n deploy.Notice, st deploy.Status, link string) error
}

// UseChat gives the engine its chat side (nil: no chat); call it before
// Launch.
func (e *Engine) UseChat(c ChatNotifier) { e.chat = c }

// noticeInput is the input of the event workflow: the event, and who
// wanted it when it was recorded.
type noticeInput struct {
	Notice    deploy.Notice    `json:"notice"`
	Callbacks []noticeCallback `json:"callbacks,omitempty"`
	Chat      []string         `json:"chat,omitempty"`
}

// noticeCallback is a callback of the descriptor, by its index.
type noticeCallback struct {
	Index int    `json:"index"`
	URL   string `json:"url"`
}

// chatInput is the input of a chat delivery.
type chatInput struct {
	ID     string        `json:"id"`
	Target string        `json:"target"`
	Notice deploy.Notice `json:"notice"`
	Status deploy.Status `json:"status"`
	Link   string        `json:"link"`
	// N is the number of this attempt and Deadline the end of its retries:
	// set on the retries.
	N        int       `json:"n,omitempty"`
	Deadline time.Time `json:"deadline,omitzero"`
}

// snapshot is what the event workflow records of the deploy, once.
type snapshot struct {
	Gone bool `json:"gone,omitempty"`
	// Bodies are the payloads recorded of the deliveries, by callback
	// index: the ones recorded first, should the snapshot be taken again.
	// A callback without one (callbacks.max_step_events reached) gets
	// nothing.
	Bodies map[int]string `json:"bodies,omitempty"`
	// Body is the one payload of every callback in a snapshot recorded
	// before Bodies existed.
	Body   string        `json:"body,omitempty"`
	Status deploy.Status `json:"status"`
}

// newNotice is the event of type t of the deploy id.
func newNotice(id string, t deploy.NoticeType, step, state string) deploy.Notice {
	return deploy.Notice{ID: noticeID(id, t, step), Type: t, DeploymentID: id, Step: step, State: state, At: time.Now().UTC()}
}

// wanted is who wants n of the deploy d (descriptor desc): its callbacks
// that asked for its type, the chat targets that want it. Read from what
// is in memory: a deploy nobody follows costs no query.
func (e *Engine) wanted(n deploy.Notice, desc *deploy.Descriptor, d func() *deploy.Deployment) (noticeInput, bool) {
	in := noticeInput{Notice: n}
	for i, c := range desc.Callbacks {
		if c.Wants(n.Type) {
			in.Callbacks = append(in.Callbacks, noticeCallback{Index: i, URL: c.URL})
		}
	}
	if e.chat != nil {
		in.Chat = e.chat.Wants(n, d())
	}
	return in, len(in.Callbacks) > 0 || len(in.Chat) > 0
}

// jobDeployment is the deploy of j as far as the job knows it, for the chat
// side's choice of targets.
func jobDeployment(j *deploy.Job) func() *deploy.Deployment {
	return func() *deploy.Deployment {
		return &deploy.Deployment{ID: j.ID, Tenant: j.Descriptor.Tenant, Application: j.Descriptor.Application,
			Environment: j.Descriptor.Environment, Requester: j.Requester, DryRun: j.Descriptor.DryRun,
			Artifact: j.Descriptor.Artifact, Descriptor: j.Descriptor, Effective: j.Effective, Plan: j.Plan}
	}
}

// recordNotice enqueues the event workflow of n on tx (nil: on its own),
// when someone wants n.
func (e *Engine) recordNotice(tx any, n deploy.Notice, desc *deploy.Descriptor, d func() *deploy.Deployment) error {
	in, ok := e.wanted(n, desc, d)
	if !ok {
		return nil
	}
	return e.enqueueNotice(tx, in)
}

// enqueueNotice enqueues the event workflow of in, which wanted chose, on
// tx (nil: on its own).
func (e *Engine) enqueueNotice(tx any, in noticeInput) error {
	n := in.Notice
	opts := []dbos.EnqueueOption{
		dbos.WithEnqueueWorkflowID(n.ID),
		dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion),
	}
	if tx != nil {
		opts = append(opts, dbos.WithEnqueueTransaction(tx))
	}
	if _, err := dbos.Enqueue[string](e.dbos, noticeQueue, noticeWorkflowName, in, opts...); err != nil {
		return fmt.Errorf("record the %s event of %s: %w", n.Type, n.DeploymentID, err)
	}
	return nil
}

// finishedOutside records the finished event of a deploy that ended
// outside its workflow (the end of a wait, a cancel before its start), in
// the store's transaction tx.
func (e *Engine) finishedOutside(_ context.Context, tx any, d deploy.Deployment) error {
	if d.State == deploy.StateCancelled && d.CancelledFrom.Waiting() {
		// Its wait is woken by the cancel's commit: it stops at once (and
		// closes a change ticket opened for it), and no crash between the
		// two leaves it asleep until its time, its approvals' expiry or
		// its dependencies'.
		if err := dbos.Send(e.dbos, waitWorkflowID(d.ID), "look", topicWait, dbos.WithSendTransaction(tx)); err != nil {
			return fmt.Errorf("wake the wait of %s: %w", d.ID, err)
		}
	}
	n := newNotice(d.ID, deploy.NoticeFinished, "", string(d.State))
	return e.recordNotice(tx, n, &d.Descriptor, func() *deploy.Deployment { return &d })
}

// stepNotice records the step event of the end s of a rollout's own
// operation o (a bake, a wave's gates, a pause, a wave's approval) on tx.
func (r *run) stepNotice(tx any, o op, s deploy.Step) error {
	n := newNotice(r.in.ID, deploy.NoticeStep, o.key.Name(), string(s.State))
	return r.e.recordNotice(tx, n, &r.in.Descriptor, jobDeployment(&r.in))
}

// txOf is the transaction under q, as DBOS's Enqueue takes it.
func txOf(q dbos.Querier) any {
	if r, ok := pgxquerier.Unwrap(q); ok {
		return r
	}
	return q
}

// noticeWorkflow takes the snapshot of an event and starts its deliveries.
func (e *Engine) noticeWorkflow(ctx dbos.Context, in noticeInput) (string, error) {
	snap, err := dbos.RunAsStep(ctx, func(c context.Context) (snapshot, error) {
		return e.snapshot(c, in)
	}, dbos.WithStepName(stepNoticeSnapshot))
	if err != nil {
		return "", fmt.Errorf("snapshot of %s: %w", in.Notice.ID, err)
	}
	if snap.Gone {
		return "gone", nil
	}
	tenant := snap.Status.Tenant
	for _, c := range in.Callbacks {
		body, ok := snap.Bodies[c.Index]
		if snap.Bodies == nil {
			body, ok = snap.Body, true
		}
		if !ok {
			continue
		}
		cin := callbackInput{DeliveryID: callbackWorkflowID(in.Notice.ID, c.Index), Tenant: tenant, Notice: in.Notice,
			Callback: c.Index, URL: c.URL, Body: body}
		_, err := dbos.Enqueue[string](ctx, e.callbackQueue(tenant), callbackWorkflowName, cin,
			e.callbackEnqueue(tenant, dbos.WithEnqueueWorkflowID(cin.DeliveryID))...)
		if err != nil {
			return "", fmt.Errorf("enqueue delivery %s: %w", cin.DeliveryID, err)
		}
	}
	link := e.link(in.Notice)
	for _, t := range in.Chat {
		cin := chatInput{ID: chatWorkflowID(in.Notice.ID, t), Target: t, Notice: in.Notice, Status: snap.Status, Link: link}
		_, err := dbos.Enqueue[string](ctx, chatQueue, chatWorkflowName, cin,
			dbos.WithEnqueueWorkflowID(cin.ID), dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion))
		if err != nil {
			return "", fmt.Errorf("enqueue delivery %s: %w", cin.ID, err)
		}
	}
	return "started", nil
}

// link is the web page of the deploy of n.
func (e *Engine) link(n deploy.Notice) string {
	base := strings.TrimSuffix(e.cfg.Server.PublicURL, "/")
	return base + "/deployments/" + url.PathEscape(n.DeploymentID)
}

// snapshot reads the deploy once and records the deliveries its callbacks
// will see, pending: the status shows them before the first attempt.
func (e *Engine) snapshot(ctx context.Context, in noticeInput) (snapshot, error) {
	d, err := untilAvailable(ctx, func() (*deploy.Deployment, error) { return e.store.Get(ctx, in.Notice.DeploymentID) })
	if deploy.ErrorCode(err) == deploy.ENOTFOUND {
		// Removed by the retention before its event went out.
		return snapshot{Gone: true}, nil
	}
	if err != nil {
		return snapshot{}, err
	}
	snap := snapshot{Status: outward(d), Bodies: map[int]string{}}
	if len(in.Callbacks) == 0 {
		return snap, nil
	}
	body, err := callbackBody(in.Notice, d)
	if err != nil {
		return snapshot{}, err
	}
	limit := e.cfg.Callbacks.MaxStepEvents
	note := fmt.Sprintf("not sent: this callback got %d step events of the deploy (callbacks.max_step_events); "+
		"this one and the later ones are dropped", limit)
	for _, c := range in.Callbacks {
		dl := deploy.Delivery{ID: callbackWorkflowID(in.Notice.ID, c.Index), DeploymentID: d.ID, EventID: in.Notice.ID,
			EventType: in.Notice.Type, Step: in.Notice.Step, Callback: c.Index, URL: c.URL, Body: string(body)}
		put, err := untilAvailable(ctx, func() (deploy.DeliveryPut, error) { return e.store.PutDelivery(ctx, dl, limit, note) })
		if err != nil {
			return snapshot{}, err
		}
		if put.Noted {
			e.log.Warn("callback step events dropped", "deployment", dl.DeploymentID, "callback", dl.Callback,
				"url", deploy.RedactURL(dl.URL), "max_step_events", limit)
		}
		if put.Send {
			snap.Bodies[c.Index] = put.Body
		}
	}
	return snap, nil
}

// outward is the status of d as it leaves manent (callbacks, chat): the
// status JSON, which holds no secret, without the outputs of custom steps
// (whatever an HTTP API or a command printed) nor the exports taken from
// them, and without the callbacks' own deliveries.
func outward(d *deploy.Deployment) deploy.Status {
	st := deploy.NewStatus(d)
	st.Callbacks = nil
	for i := range st.Steps {
		if customType(st.Steps[i].Type) {
			st.Steps[i].Output = map[string]string{}
		}
	}
	if len(st.Exports) > 0 {
		kinds := map[string]string{}
		for _, s := range d.Plan.Steps {
			kinds[s.Name] = s.Type
		}
		for name, spec := range d.Descriptor.Exports {
			step, _, _ := chains.SplitFrom(spec.From)
			if customType(kinds[step]) {
				delete(st.Exports, name)
			}
		}
	}
	return st
}

func customType(stepType string) bool {
	return stepType == deploy.StepTypeHTTP || stepType == deploy.StepTypeCommand
}

// callbackBody is the payload of a callback: the event's type and time,
// the event itself (what happened, when: data is the status when the
// snapshot was taken, moments later), and the status, with the step's
// record for a step event.
func callbackBody(n deploy.Notice, d *deploy.Deployment) ([]byte, error) {
	st := outward(d)
	payload := struct {
		Type      string        `json:"type"`
		Timestamp time.Time     `json:"timestamp"`
		Event     callbackEvent `json:"event"`
		Data      any           `json:"data"`
	}{Type: "deployment." + string(n.Type), Timestamp: n.At,
		Event: callbackEvent{ID: n.ID, Type: n.Type, DeploymentID: n.DeploymentID, Step: n.Step, State: n.State, Rollback: n.Rollback, At: n.At}}
	if n.Type == deploy.NoticeStep {
		s := d.StatusStepNamed(n.Step)
		if s != nil && customType(s.Type) {
			s.Output = map[string]string{}
		}
		payload.Data = struct {
			deploy.Status
			Step *deploy.StatusStep `json:"step"`
		}{st, s}
	} else {
		payload.Data = st
	}
	return json.Marshal(payload)
}

// callbackEvent is the fact a callback reports, as it was when it
// happened.
type callbackEvent struct {
	ID           string            `json:"id"`
	Type         deploy.NoticeType `json:"type"`
	DeploymentID string            `json:"deployment_id"`
	Step         string            `json:"step,omitempty"`
	State        string            `json:"state,omitempty"`
	Rollback     string            `json:"rollback,omitempty"`
	At           time.Time         `json:"at"`
}
