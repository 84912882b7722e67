package client

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/Khan/genqlient/graphql"
)

// Event is one change of a followed deploy.
type Event struct {
	// Kind is what changed: deployment, step or log (the server's kinds).
	Kind       string
	Deployment DeploymentDetail
	// LogLines are the lines no previous event delivered, in order: a
	// reconnection never repeats a line.
	LogLines []LogLineDetail
}

// FollowOption changes Follow and WatchActivity.
type FollowOption func(*followOptions)

type followOptions struct {
	logsAfter   int
	onReconnect func(attempt int, err error)
}

// LogsAfter starts the log after sequence number seq (lines up to seq were
// already read, with Client.Logs for example).
func LogsAfter(seq int) FollowOption {
	return func(o *followOptions) { o.logsAfter = seq }
}

// OnReconnect is called before each attempt to reconnect a dropped
// subscription, with the error that dropped it.
func OnReconnect(f func(attempt int, err error)) FollowOption {
	return func(o *followOptions) { o.onReconnect = f }
}

// errSubscriptionEnded: the server completed the subscription before the
// deploy reached a terminal state (it was shutting down, say).
var errSubscriptionEnded = errors.New("the server ended the subscription")

// handlerError carries an error of the caller's callback through the
// session unchanged.
type handlerError struct{ err error }

func (h *handlerError) Error() string { return h.err.Error() }
func (h *handlerError) Unwrap() error { return h.err }

// Follow follows a deploy through the deploymentEvents subscription until
// it reaches a terminal state, calling onEvent for each change (first with
// the current state), and returns the deploy as it ended. A dropped
// connection is reconnected with logsAfter set to the last line seen, for
// up to the reconnect window, after which an UnreachableError is returned.
// Nothing is polled. An error of onEvent stops following and is returned
// as is; so is an APIError (NOT_FOUND, FORBIDDEN...) or the end of ctx.
func (c *Client) Follow(ctx context.Context, id string, onEvent func(Event) error, opts ...FollowOption) (*DeploymentDetail, error) {
	o := followOptions{}
	for _, f := range opts {
		f(&o)
	}
	lastSeq := o.logsAfter
	var last *DeploymentDetail
	handle := func(m DeploymentEventsWsResponse) (bool, error) {
		if len(m.Errors) > 0 {
			return false, apiErrorFrom(m.Errors)
		}
		if m.Data == nil {
			return false, nil
		}
		ev := m.Data.DeploymentEvents
		lines := append([]LogLineDetail(nil), ev.LogLines...)
		sort.SliceStable(lines, func(i, j int) bool { return lines[i].Seq < lines[j].Seq })
		fresh := lines[:0]
		for _, l := range lines {
			if l.Seq > lastSeq {
				fresh = append(fresh, l)
				lastSeq = l.Seq
			}
		}
		d := ev.Deployment
		last = &d
		if err := onEvent(Event{Kind: ev.Kind, Deployment: d, LogLines: fresh}); err != nil {
			return false, &handlerError{err}
		}
		return Terminal(d.State), nil
	}
	err := c.reconnecting(ctx, o.onReconnect, func(ctx context.Context) (bool, bool, error) {
		return runSession(ctx, c, func(ctx context.Context, wsc graphql.WebSocketClient) (chan DeploymentEventsWsResponse, string, error) {
			return DeploymentEvents(ctx, wsc, id, lastSeq)
		}, handle)
	})
	if err != nil {
		return last, err
	}
	return last, nil
}

// WatchActivity delivers every change of a readable deploy (the activity
// feed) until ctx ends or onEvent fails, reconnecting like Follow. It
// returns ctx.Err() when ctx ends.
func (c *Client) WatchActivity(ctx context.Context, onEvent func(ActivityEvent) error, opts ...FollowOption) error {
	o := followOptions{}
	for _, f := range opts {
		f(&o)
	}
	handle := func(m ActivityEventsWsResponse) (bool, error) {
		if len(m.Errors) > 0 {
			return false, apiErrorFrom(m.Errors)
		}
		if m.Data == nil {
			return false, nil
		}
		if err := onEvent(m.Data.Activity); err != nil {
			return false, &handlerError{err}
		}
		return false, nil
	}
	return c.reconnecting(ctx, o.onReconnect, func(ctx context.Context) (bool, bool, error) {
		return runSession(ctx, c, func(ctx context.Context, wsc graphql.WebSocketClient) (chan ActivityEventsWsResponse, string, error) {
			return ActivityEvents(ctx, wsc)
		}, handle)
	})
}

// reconnecting runs session until it is done, reconnecting after transport
// failures with a growing pause. The window of Client restarts whenever a
// session received something.
func (c *Client) reconnecting(ctx context.Context, onReconnect func(int, error),
	session func(context.Context) (done, progressed bool, err error)) error {
	if c.addrErr != nil {
		return c.addrErr
	}
	var since time.Time
	attempt := 0
	for {
		done, progressed, err := session(ctx)
		if done {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if final(err) {
			var h *handlerError
			if errors.As(err, &h) {
				return h.err
			}
			return err
		}
		if progressed {
			since, attempt = time.Time{}, 0
		}
		if since.IsZero() {
			since = time.Now()
		}
		if time.Since(since) >= c.reconnectWindow {
			var u *UnreachableError
			if errors.As(err, &u) {
				return err
			}
			return &UnreachableError{Server: c.server, Err: err}
		}
		attempt++
		if onReconnect != nil {
			onReconnect(attempt, err)
		}
		t := time.NewTimer(backoff(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// final reports whether reconnecting cannot help: the server answered, or
// the caller's callback failed.
func final(err error) bool {
	var api *APIError
	var h *handlerError
	return errors.As(err, &api) || errors.As(err, &h)
}

func backoff(attempt int) time.Duration {
	d := 250 * time.Millisecond
	for i := 1; i < attempt && d < 5*time.Second; i++ {
		d *= 2
	}
	return min(d, 5*time.Second)
}

// runSession runs one subscription on one connection until it completes
// after handle reported the end (done), the connection or the subscription
// ends, or ctx ends. progressed reports whether a message arrived.
func runSession[T any](ctx context.Context, c *Client,
	subscribe func(context.Context, graphql.WebSocketClient) (chan T, string, error),
	handle func(T) (bool, error)) (done, progressed bool, err error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d := &wsDialer{c: c}
	params, err := c.initPayload(ctx)
	if err != nil {
		// Reconnecting cannot help a token that cannot be had.
		return false, false, &handlerError{err: err}
	}
	wsc := graphql.NewClientUsingWebSocket(c.wsEndpoint, d, graphql.WithConnectionParams(params))
	errChan, err := wsc.Start(sctx)
	if err != nil {
		return false, false, c.startError(ctx, d, err)
	}
	// genqlient's listener sends exactly one error before it exits, and may
	// be blocked handing over a message: closing the socket and draining
	// both channels until that error is how it is stopped without a leak.
	var dataChan chan T
	listenerDone := false
	defer func() {
		_ = d.conn.Close()
		for !listenerDone {
			select {
			case _, ok := <-dataChan:
				if !ok {
					dataChan = nil
				}
			// The listener's error comes from the close above: the session's
			// result is already decided, so it is drained, not reported.
			case <-errChan: //nolint:errcheck // drained on purpose, see above
				listenerDone = true
			}
		}
	}()
	dataChan, _, err = subscribe(sctx, wsc)
	if err != nil {
		return false, false, c.mapError(ctx, err)
	}
	// After the final state a server may still send the rest of a long log
	// before it completes the subscription: wait for the completion, or for
	// a quiet moment when a server does not complete.
	finished := false
	var grace <-chan time.Time
	for {
		select {
		case msg, ok := <-dataChan:
			if !ok {
				dataChan = nil
				if finished {
					return true, progressed, nil
				}
				return false, progressed, errSubscriptionEnded
			}
			progressed = true
			fin, err := handle(msg)
			if err != nil {
				return false, progressed, err
			}
			if fin && !finished {
				finished = true
				grace = time.After(finalGrace)
			}
		case err := <-errChan:
			listenerDone = true
			if finished {
				return true, progressed, nil
			}
			return false, progressed, c.mapError(ctx, err)
		case <-grace:
			return true, progressed, nil
		case <-ctx.Done():
			return finished, progressed, ctx.Err()
		}
	}
}

// finalGrace is how long a subscription that delivered a final state may
// stay open without sending anything before it is considered complete.
const finalGrace = 3 * time.Second

// startError classifies a failed connection: a refused connection_init is
// final (probed over HTTP when the close frame does not say why), anything
// else is a transport failure worth a reconnection.
func (c *Client) startError(ctx context.Context, d *wsDialer, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var api *APIError
	if errors.As(err, &api) {
		return api
	}
	if d.conn == nil || d.conn.acked {
		return c.mapError(ctx, err)
	}
	refusal := initRefusal(err)
	if refusal == nil {
		return c.mapError(ctx, err)
	}
	if refusal.Code != "" {
		return refusal
	}
	if _, perr := c.Viewer(ctx); perr != nil {
		return perr
	}
	return refusal
}

func (c *Client) initPayload(ctx context.Context) (map[string]any, error) {
	token := c.token
	if c.tokenSource != nil {
		var err error
		if token, err = c.tokenSource(ctx); err != nil {
			return nil, err
		}
	}
	if token == "" {
		return map[string]any{}, nil
	}
	return map[string]any{"Authorization": "Bearer " + token}, nil
}
