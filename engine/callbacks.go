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
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/secrets"
	"manent.dev/manent/internal/safehttp"
)

// The delivery of an event to a callback, under the Standard Webhooks
// specification: the same webhook-id at every attempt and replay, a
// signature over the ID, the attempt's timestamp and the body, retries
// with a jittered, growing backoff until the retry window ends (then a
// dead letter, which a replay sends again), and 410 Gone stops every
// further delivery to that URL from every deploy of the tenant.

// callbackInput is the input of a delivery workflow.
type callbackInput struct {
	DeliveryID string `json:"delivery_id"`
	// Tenant is the deploy's, the partition of the callbacks' queue; ""
	// for a delivery enqueued before that queue existed.
	Tenant   string        `json:"tenant,omitempty"`
	Notice   deploy.Notice `json:"notice"`
	Callback int           `json:"callback"`
	URL      string        `json:"url"`
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
// the delivery in, the wait before the next attempt when it retries, and
// what the delivery's row is to show (a step of its own records it).
type attemptResult struct {
	State  deploy.DeliveryState    `json:"state"`
	Wait   time.Duration           `json:"wait,omitempty"`
	Record *deploy.DeliveryAttempt `json:"record,omitempty"`
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
	if res.Record != nil {
		// A step of its own, retried: once DBOS holds the attempt's result,
		// the attempt is never made again, so its row must be written by a
		// step that a crash or a failing database makes again.
		_, err := dbos.RunAsStep(ctx, func(c context.Context) (struct{}, error) {
			return untilAvailable(c, func() (struct{}, error) {
				return struct{}{}, e.store.RecordDelivery(c, in.DeliveryID, *res.Record)
			})
		}, dbos.WithStepName(stepCallbackRecord+strconv.Itoa(in.N)), dbos.WithStepMaxRetries(1000))
		if err != nil {
			return "", fmt.Errorf("record attempt %d of %s: %w", in.N, in.DeliveryID, err)
		}
	}
	if res.State.Final() {
		return string(res.State), nil
	}
	next := in
	next.N++
	_, err = dbos.Enqueue[string](ctx, e.callbackQueue(in.Tenant), callbackWorkflowName, next, e.callbackEnqueue(in.Tenant,
		dbos.WithEnqueueWorkflowID(retryWorkflowID(in.Run, next.N)), dbos.WithEnqueueDelay(res.Wait))...)
	if err != nil {
		return "", fmt.Errorf("enqueue the retry of %s: %w", in.DeliveryID, err)
	}
	return string(res.State), nil
}

// callbackQueue is the queue of a tenant's deliveries: the callbacks'
// queue, or the events' one for a delivery enqueued before it existed
// (no tenant).
func (e *Engine) callbackQueue(tenant string) string {
	if tenant == "" {
		return noticeQueue
	}
	return callbackQueue
}

// callbackEnqueue are the options of a tenant's delivery: its partition,
// the application version, and opts.
func (e *Engine) callbackEnqueue(tenant string, opts ...dbos.EnqueueOption) []dbos.EnqueueOption {
	opts = append(opts, dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion))
	if tenant != "" {
		opts = append(opts, dbos.WithEnqueueQueuePartitionKey(tenant))
	}
	return opts
}

// attemptCallback makes attempt n of a delivery and says what its row is
// to record.
func (e *Engine) attemptCallback(ctx context.Context, in callbackInput, n int, deadline time.Time) (attemptResult, error) {
	a := deploy.DeliveryAttempt{Attempts: in.Attempts + n}
	disabled, err := untilAvailable(ctx, func() (bool, error) { return e.store.URLDisabled(ctx, in.Notice.DeploymentID, in.URL) })
	if err != nil {
		return attemptResult{}, err
	}
	switch {
	case disabled:
		a.State, a.Attempts, a.LastError = deploy.DeliveryDisabled, in.Attempts+n-1,
			"not sent: the receiver answered 410 Gone to an earlier event of this tenant (replay with --include-disabled to enable it)"
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
			a.State, a.LastError = deploy.DeliveryDisabled, err.Error()+": the URL is disabled for every deploy of the tenant"
		case errors.Is(err, safehttp.ErrAddressRefused) || deploy.IsPermanent(err):
			a.State, a.LastError = deploy.DeliveryDead, err.Error()
		default:
			a.LastError = err.Error()
			now := time.Now().UTC()
			if !now.Before(deadline) {
				a.State = deploy.DeliveryDead
				a.LastError += fmt.Sprintf(" (retry window of %s over: a replay sends it again)", e.cfg.Callbacks.RetryWindow)
				break
			}
			// The last wait is cut to the window's end: the last attempt is
			// made when the window ends, not one full wait before it.
			wait := min(retryWait(e.firstRetry(), n, rand.Float64()), deadline.Sub(now))
			next := now.Add(wait)
			a.State, a.NextAttemptAt = deploy.DeliveryRetrying, &next
			return attemptResult{State: a.State, Wait: wait, Record: &a}, nil
		}
	}
	if a.State == deploy.DeliveryDead {
		e.log.Warn("callback delivery dead", "deployment", in.Notice.DeploymentID, "delivery", in.DeliveryID,
			"url", deploy.RedactURL(in.URL), "error", a.LastError)
	}
	return attemptResult{State: a.State, Record: &a}, nil
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
	req.Header.Set("webhook-signature", SignAll(keys, in.Notice.ID, ts, []byte(in.Body)))
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
		return 0, errors.New(networkProblem(err, e.cfg.Callbacks.Timeout))
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode/100 == 2 {
		return resp.StatusCode, nil
	}
	// The status code and a fixed phrase, never the receiver's answer:
	// whoever reads the deploy would read what an internal service says.
	return resp.StatusCode, fmt.Errorf("the receiver answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
}

// networkProblem says what kept an attempt from an answer in a fixed
// phrase: Go's own errors name the addresses the host resolved to, which
// would show a private network's layout to whoever reads the deploy.
func networkProblem(err error, timeout time.Duration) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err):
		return fmt.Sprintf("no answer within %s (callbacks.timeout; connecting within %s)", timeout,
			min(config.CallbackConnectTimeout, timeout))
	case errors.As(err, &dnsErr):
		return "the receiver's host name does not resolve"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the receiver refused the connection"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "the receiver closed the connection without an answer"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "the receiver cannot be reached"
	case strings.Contains(err.Error(), "tls:") || strings.Contains(err.Error(), "x509:"):
		return "the TLS handshake with the receiver failed (its certificate is not trusted, or TLS is refused)"
	}
	return "the request to the receiver failed"
}

// signingKeys resolves callbacks.signing_key_refs with the secrets
// providers: every key signs.
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

// SignAll is the webhook-signature header of a delivery signed with every
// key, space-separated as Standard Webhooks allows: during a rotation a
// receiver that knows either key verifies it.
func SignAll(keys [][]byte, id, timestamp string, body []byte) string {
	sigs := make([]string, len(keys))
	for i, k := range keys {
		sigs[i] = Sign(k, id, timestamp, body)
	}
	return strings.Join(sigs, " ")
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
	_, err = dbos.Enqueue[string](ctx, chatQueue, chatWorkflowName, next,
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
			in := callbackInput{DeliveryID: dl.ID, Tenant: r.Tenant, Callback: dl.Callback, URL: dl.URL, Body: dl.Body, Replay: r.N,
				Attempts: dl.Attempts, Run: replayWorkflowID(dl.ID, r.N),
				Notice: deploy.Notice{ID: dl.EventID, Type: dl.EventType, DeploymentID: dl.DeploymentID, Step: dl.Step}}
			_, err := dbos.Enqueue[string](e.dbos, e.callbackQueue(in.Tenant), callbackWorkflowName, in,
				e.callbackEnqueue(in.Tenant, dbos.WithEnqueueWorkflowID(in.Run), dbos.WithEnqueueTransaction(tx))...)
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
