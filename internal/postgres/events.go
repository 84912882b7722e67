package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"manent.dev/manent/deploy"
)

const (
	// subscriberBuffer is how many events a subscriber may lag behind before
	// its oldest ones are dropped.
	subscriberBuffer = 64
	// idleCheck is how long the listener waits for a notification before it
	// checks that its connection is still alive.
	idleCheck   = 30 * time.Second
	minBackoff  = 100 * time.Millisecond
	maxBackoff  = 5 * time.Second
	listenerApp = "manent events"
)

// Events implements deploy.Events: one connection per process LISTENs on
// Channel and fans the notifications out to the subscribers. The listener
// never waits for a subscriber: one that lags loses its oldest events, never
// the latest. After the connection is (re)established, every subscriber gets
// a synthetic EventDeployment for the deploy it follows ("" for those that
// follow all), since it may have missed events meanwhile: it must re-read.
type Events struct {
	url string
	log *slog.Logger

	cancel context.CancelFunc
	done   chan struct{}
	ready  chan struct{}

	mu     sync.Mutex
	subs   map[string]map[*subscriber]struct{} // by deploy ID, "" for all
	closed bool
}

var _ deploy.Events = (*Events)(nil)

type subscriber struct {
	id string
	ch chan deploy.Event
}

// NewEvents starts listening on url in the background; it reconnects with
// backoff until Close.
func NewEvents(url string, log *slog.Logger) *Events {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &Events{
		url: url, log: log, cancel: cancel,
		done: make(chan struct{}), ready: make(chan struct{}),
		subs: map[string]map[*subscriber]struct{}{},
	}
	go e.run(ctx)
	return e
}

// Ready waits until the first LISTEN is in place: events written after it
// returns reach the subscribers.
func (e *Events) Ready(ctx context.Context) error {
	select {
	case <-e.ready:
		return nil
	case <-e.done:
		return errors.New("events: closed")
	case <-ctx.Done():
		return fmt.Errorf("wait for events listener: %w", ctx.Err())
	}
}

// Subscribe implements deploy.Events. The channel is closed when ctx ends or
// the Events is closed.
func (e *Events) Subscribe(ctx context.Context, deploymentID string) <-chan deploy.Event {
	sub := &subscriber{id: deploymentID, ch: make(chan deploy.Event, subscriberBuffer)}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		close(sub.ch)
		return sub.ch
	}
	if e.subs[deploymentID] == nil {
		e.subs[deploymentID] = map[*subscriber]struct{}{}
	}
	e.subs[deploymentID][sub] = struct{}{}
	e.mu.Unlock()
	context.AfterFunc(ctx, func() { e.unsubscribe(sub) })
	return sub.ch
}

func (e *Events) unsubscribe(sub *subscriber) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.subs[sub.id][sub]; !ok {
		return // Close got there first
	}
	delete(e.subs[sub.id], sub)
	if len(e.subs[sub.id]) == 0 {
		delete(e.subs, sub.id)
	}
	close(sub.ch)
}

// Close stops listening and closes every subscriber's channel.
func (e *Events) Close() {
	e.cancel()
	<-e.done
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	e.closed = true
	for _, subs := range e.subs {
		for sub := range subs {
			close(sub.ch)
		}
	}
	e.subs = nil
}

func (e *Events) run(ctx context.Context) {
	defer close(e.done)
	backoff := minBackoff
	var readyOnce sync.Once
	for {
		conn, err := e.connect(ctx)
		if err == nil {
			backoff = minBackoff
			e.resync()
			readyOnce.Do(func() { close(e.ready) })
			err = e.listen(ctx, conn)
			closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = conn.Close(closeCtx)
			cancel()
		}
		if ctx.Err() != nil {
			return
		}
		e.log.Warn("events listener disconnected; reconnecting", "error", err, "in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

func (e *Events) connect(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(e.url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	cfg.RuntimeParams["application_name"] = listenerApp
	// A wait that times out leaves the connection usable (the default
	// handler would send a cancel request to the server each time).
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{Channel}.Sanitize()); err != nil {
		_ = conn.Close(context.Background())
		return nil, fmt.Errorf("listen: %w", err)
	}
	return conn, nil
}

// listen dispatches notifications until the connection fails or ctx ends.
// A quiet connection is pinged now and then: a peer that vanished without
// closing the socket would otherwise leave us waiting forever.
func (e *Events) listen(ctx context.Context, conn *pgx.Conn) error {
	for {
		wctx, cancel := context.WithTimeout(ctx, idleCheck)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			e.dispatch(n.Payload)
		case ctx.Err() != nil:
			return ctx.Err()
		case pgconn.Timeout(err):
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := conn.Ping(pctx)
			cancel()
			if err != nil {
				return fmt.Errorf("ping: %w", err)
			}
		default:
			return err
		}
	}
}

func (e *Events) dispatch(payload string) {
	var ev deploy.Event
	if err := json.Unmarshal([]byte(payload), &ev); err != nil || ev.Kind == "" {
		e.log.Warn("events: ignoring a notification that is not an event", "payload", payload)
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for sub := range e.subs[ev.DeploymentID] {
		offer(sub.ch, ev)
	}
	if ev.DeploymentID != "" {
		for sub := range e.subs[""] {
			offer(sub.ch, ev)
		}
	}
}

// resync tells every subscriber to re-read what it follows.
func (e *Events) resync() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for id, subs := range e.subs {
		for sub := range subs {
			offer(sub.ch, deploy.Event{Kind: deploy.EventDeployment, DeploymentID: id})
		}
	}
}

// offer never blocks: when the buffer is full the oldest event makes room,
// so the subscriber always ends with the latest. Only the listener sends, and
// under e.mu, so the channel cannot be closed meanwhile.
func offer(ch chan deploy.Event, ev deploy.Event) {
	select {
	case ch <- ev:
		return
	default:
	}
	select {
	case <-ch:
	default:
	}
	select {
	case ch <- ev:
	default:
	}
}
