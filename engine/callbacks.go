package engine

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/secrets"
	"manent.dev/manent/internal/safehttp"
)

// The delivery of an event to a callback, under the Standard Webhooks
// specification: the same webhook-id at every attempt and replay, a
// signature over the ID, the attempt's timestamp and the body, retries
// with a jittered, growing backoff until the retry window ends (then a
// dead letter, which a replay sends again), and 410 Gone stops every
// further delivery of the deploy to that URL.

// callbackInput is the input of a delivery workflow.
type callbackInput struct {
	DeliveryID string        `json:"delivery_id"`
	Notice     deploy.Notice `json:"notice"`
	Callback   int           `json:"callback"`
	URL        string        `json:"url"`
	// Body is the payload, the event's snapshot: every attempt and replay
	// sends the same bytes.
	Body string `json:"body"`
	// Replay is the number of this replay, 0 for the first delivery;
	// Attempts are the attempts made before it.
	Replay   int `json:"replay,omitempty"`
	Attempts int `json:"attempts,omitempty"`
	// Run is the workflow ID of the first attempt of this delivery (or
	// replay), N the number of this attempt in it and Deadline the end of
	// its retry window: set on the retries.
	Run      string    `json:"run,omitempty"`
	N        int       `json:"n,omitempty"`
	Deadline time.Time `json:"deadline,omitzero"`
}

// attemptResult is what DBOS records of one attempt: the state it left
// the delivery in, and the wait before the next attempt when it retries.
type attemptResult struct {
	State deploy.DeliveryState `json:"state"`
	Wait  time.Duration        `json:"wait,omitempty"`
}

// retrySchedule is the wait after each failed attempt, in units of
// callbacks.first_retry (5s by default: 5s, 5m, 30m, 2h, 5h, 10h, 10h...),
// each within ±20 %.
var retrySchedule = []int64{1, 60, 360, 1440, 3600, 7200}

// retryWait is the wait after the n-th failed attempt (from 1).
func retryWait(first time.Duration, n int, jitter float64) time.Duration {
	units := retrySchedule[min(n, len(retrySchedule))-1]
	base := time.Duration(units) * first
	return time.Duration(float64(base) * (0.8 + 0.4*jitter))
}

// callbackWorkflow makes one attempt of a delivery. A retry is another
// workflow, enqueued delayed by this one: a delivery waiting hours for its
// next attempt holds none of the queue's slots (DBOS counts a sleeping
// workflow as a running one), so dead receivers never hold up live ones.
func (e *Engine) callbackWorkflow(ctx dbos.Context, in callbackInput) (string, error) {
	if in.Deadline.IsZero() {
		deadline, err := dbos.RunAsStep(ctx, func(context.Context) (time.Time, error) {
			return time.Now().UTC().Add(e.cfg.Callbacks.RetryWindow), nil
		}, dbos.WithStepName(stepCallbackStart))
		if err != nil {
			return "", err
		}
		in.Deadline, in.N = deadline, 1
		if in.Run == "" {
			if in.Run, err = dbos.GetWorkflowID(ctx); err != nil {
				return "", err
			}
		}
	}
	res, err := dbos.RunAsStep(ctx, func(c context.Context) (attemptResult, error) {
		return e.attemptCallback(c, in, in.N, in.Deadline)
	}, dbos.WithStepName(stepCallbackAttempt+strconv.Itoa(in.N)))
	if err != nil {
		return "", err
	}
	if res.State.Final() {
		return string(res.State), nil
	}
	next := in
	next.N++
	_, err = dbos.Enqueue[string](ctx, noticeQueue, callbackWorkflowName, next,
		dbos.WithEnqueueWorkflowID(retryWorkflowID(in.Run, next.N)), dbos.WithEnqueueDelay(res.Wait),
		dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion))
	if err != nil {
		return "", fmt.Errorf("enqueue the retry of %s: %w", in.DeliveryID, err)
	}
	return string(res.State), nil
}

// attemptCallback makes attempt n of a delivery and records its outcome.
func (e *Engine) attemptCallback(ctx context.Context, in callbackInput, n int, deadline time.Time) (attemptResult, error) {
	a := deploy.DeliveryAttempt{Attempts: in.Attempts + n}
	disabled, err := untilAvailable(ctx, func() (bool, error) { return e.store.URLDisabled(ctx, in.Notice.DeploymentID, in.URL) })
	if err != nil {
		return attemptResult{}, err
	}
	switch {
	case disabled && in.Replay == 0:
		a.State, a.Attempts, a.LastError = deploy.DeliveryDisabled, in.Attempts+n-1, "not sent: the receiver answered 410 Gone to an earlier event of this deploy"
	default:
		// The policy may have changed since the submission: a URL it no
		// longer allows is never called.
		if msg := e.cfg.Callbacks.CallbackProblem(in.URL); msg != "" {
			a.State, a.Attempts, a.LastError = deploy.DeliveryDead, in.Attempts+n-1, "not sent: the URL "+msg
			break
		}
		status, err := e.postCallback(ctx, in)
		a.LastStatus = status
		switch {
		case err == nil:
			now := time.Now().UTC()
			a.State, a.DeliveredAt = deploy.DeliveryDelivered, &now
		case status == http.StatusGone:
			a.State, a.LastError = deploy.DeliveryDisabled, err.Error()
		case errors.Is(err, safehttp.ErrAddressRefused) || deploy.IsPermanent(err):
			a.State, a.LastError = deploy.DeliveryDead, err.Error()
		default:
			a.LastError = err.Error()
			wait := retryWait(e.firstRetry(), n, rand.Float64())
			next := time.Now().UTC().Add(wait)
			if next.After(deadline) {
				a.State = deploy.DeliveryDead
				a.LastError += fmt.Sprintf(" (retry window of %s over: a replay sends it again)", e.cfg.Callbacks.RetryWindow)
				break
			}
			a.State, a.NextAttemptAt = deploy.DeliveryRetrying, &next
			e.record(ctx, in, a)
			return attemptResult{State: a.State, Wait: wait}, nil
		}
	}
	if a.State == deploy.DeliveryDead {
		e.log.Warn("callback delivery dead", "deployment", in.Notice.DeploymentID, "delivery", in.DeliveryID,
			"url", deploy.RedactURL(in.URL), "error", a.LastError)
	}
	e.record(ctx, in, a)
	return attemptResult{State: a.State}, nil
}

// record writes the outcome of an attempt, waiting for the database.
func (e *Engine) record(ctx context.Context, in callbackInput, a deploy.DeliveryAttempt) {
	_, err := untilAvailable(ctx, func() (struct{}, error) { return struct{}{}, e.store.RecordDelivery(ctx, in.DeliveryID, a) })
	if err != nil {
		e.log.Warn("record a callback attempt", "delivery", in.DeliveryID, "error", err)
	}
}

func (e *Engine) firstRetry() time.Duration {
	if d := e.cfg.Callbacks.FirstRetry; d > 0 {
		return d
	}
	return 5 * time.Second
}

// postCallback sends the delivery once: nil for a 2xx answer, otherwise an
// error that names neither the URL's query nor its user info, with at most
// a short excerpt of the answer.
func (e *Engine) postCallback(ctx context.Context, in callbackInput) (int, error) {
	keys, err := e.signingKeys(ctx)
	if err != nil {
		return 0, err
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.URL, bytes.NewReader([]byte(in.Body)))
	if err != nil {
		return 0, deploy.Permanentf("the URL cannot be called")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "manent/"+buildVersion())
	req.Header.Set("webhook-id", in.Notice.ID)
	req.Header.Set("webhook-timestamp", ts)
	req.Header.Set("webhook-signature", Sign(keys[0], in.Notice.ID, ts, []byte(in.Body)))
	resp, err := safehttp.Do(e.callbackHTTP, req, 64<<10)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, safehttp.ErrRedirect) {
			return 0, errors.New("the receiver answered with a redirect, which manent never follows")
		}
		if errors.Is(err, safehttp.ErrAddressRefused) {
			return 0, fmt.Errorf("%w: a link-local or metadata address", safehttp.ErrAddressRefused)
		}
		if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Timeout") {
			return 0, fmt.Errorf("no answer within %s (callbacks.timeout)", e.cfg.Callbacks.Timeout)
		}
		return 0, errors.New(deploy.EscapeText(err.Error()))
	}
	defer func() { _ = resp.Body.Close() }()
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, 120))
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode/100 == 2 {
		return resp.StatusCode, nil
	}
	msg := fmt.Sprintf("the receiver answered %d", resp.StatusCode)
	if s := strings.TrimSpace(string(excerpt)); s != "" {
		msg += ": " + deploy.EscapeText(s)
	}
	return resp.StatusCode, errors.New(msg)
}

// signingKeys resolves callbacks.signing_key_refs with the secrets
// providers: the first key signs.
func (e *Engine) signingKeys(ctx context.Context) ([][]byte, error) {
	refs := e.cfg.Callbacks.SigningKeyRefs
	if len(refs) == 0 {
		return nil, deploy.Permanentf("no signing key: manent.yml callbacks.signing_key_refs is empty")
	}
	var keys [][]byte
	for _, ref := range refs {
		v, err := secrets.Resolver(e.env.Secrets).Resolve(ctx, ref)
		if err != nil {
			// The reference names no secret value; it stays in the log.
			e.log.Warn("callback signing key", "error", err)
			return nil, fmt.Errorf("a signing key of callbacks.signing_key_refs cannot be read (see the worker log)")
		}
		keys = append(keys, SigningKey(v))
	}
	return keys, nil
}

// SigningKey is the HMAC key of a signing secret: the bytes a Standard
// Webhooks secret (whsec_<base64>) encodes, or the secret's own bytes.
func SigningKey(secret string) []byte {
	if b64, ok := strings.CutPrefix(secret, "whsec_"); ok {
		if k, err := base64.StdEncoding.DecodeString(b64); err == nil {
			return k
		}
	}
	return []byte(secret)
}

// Sign is the webhook-signature of a delivery: v1, then the base64 of the
// HMAC-SHA256 of "<id>.<timestamp>.<body>".
func Sign(key []byte, id, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// chatWorkflow posts one event to one chat target: retried with a growing
// backoff for an hour (each retry a delayed workflow, as a callback's),
// then given up with a line in the log.
func (e *Engine) chatWorkflow(ctx dbos.Context, in chatInput) (string, error) {
	if e.chat == nil {
		return "no chat", nil
	}
	if in.Deadline.IsZero() {
		deadline, err := dbos.RunAsStep(ctx, func(context.Context) (time.Time, error) {
			return time.Now().UTC().Add(time.Hour), nil
		}, dbos.WithStepName(stepChatStart))
		if err != nil {
			return "", err
		}
		in.Deadline, in.N = deadline, 1
	}
	res, err := dbos.RunAsStep(ctx, func(c context.Context) (attemptResult, error) {
		err := e.chat.Send(c, in.Target, in.Notice, in.Status, in.Link)
		switch {
		case err == nil:
			return attemptResult{State: deploy.DeliveryDelivered}, nil
		case !deploy.IsPermanent(err):
			wait := retryWait(e.firstRetry(), in.N, rand.Float64())
			if time.Now().Add(wait).Before(in.Deadline) {
				return attemptResult{State: deploy.DeliveryRetrying, Wait: wait}, nil
			}
		}
		e.log.Warn("chat message given up", "deployment", in.Notice.DeploymentID, "event", in.Notice.ID,
			"target", in.Target, "attempts", in.N, "error", err)
		return attemptResult{State: deploy.DeliveryDead}, nil
	}, dbos.WithStepName(stepChatAttempt+strconv.Itoa(in.N)))
	if err != nil {
		return "", err
	}
	if res.State.Final() {
		return string(res.State), nil
	}
	next := in
	next.N++
	_, err = dbos.Enqueue[string](ctx, noticeQueue, chatWorkflowName, next,
		dbos.WithEnqueueWorkflowID(retryWorkflowID(in.ID, next.N)), dbos.WithEnqueueDelay(res.Wait),
		dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion))
	if err != nil {
		return "", fmt.Errorf("enqueue the retry of %s: %w", in.ID, err)
	}
	return string(res.State), nil
}

// ReplayCallbacks sends the dead deliveries of the deploy id again (the
// disabled ones too when disabled is set; only deliveryID unless it is
// ""), with their webhook-id and body, in the transaction that makes them
// pending again. It returns them; an error says which is not replayable.
func (e *Engine) ReplayCallbacks(ctx context.Context, id, deliveryID string, disabled bool) ([]deploy.Delivery, error) {
	reps, err := e.store.StartReplay(ctx, id, deliveryID, disabled, func(tx any, reps []deploy.Replay) error {
		for _, r := range reps {
			dl := r.Delivery
			in := callbackInput{DeliveryID: dl.ID, Callback: dl.Callback, URL: dl.URL, Body: dl.Body, Replay: r.N,
				Attempts: dl.Attempts, Run: replayWorkflowID(dl.ID, r.N),
				Notice: deploy.Notice{ID: dl.EventID, Type: dl.EventType, DeploymentID: dl.DeploymentID, Step: dl.Step}}
			_, err := dbos.Enqueue[string](e.dbos, noticeQueue, callbackWorkflowName, in,
				dbos.WithEnqueueWorkflowID(in.Run),
				dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion),
				dbos.WithEnqueueTransaction(tx))
			if err != nil {
				return fmt.Errorf("enqueue the replay of %s: %w", dl.ID, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]deploy.Delivery, len(reps))
	for i, r := range reps {
		out[i] = r.Delivery
	}
	return out, nil
}
