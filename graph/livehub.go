package graph

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

// SharedReader reads a deploy once for every subscriber of a Hub, and cuts
// what each one may see of it (service.Service is one).
type SharedReader interface {
	// ReadShared returns a deploy as stored, authorizing nobody. ENOTFOUND.
	ReadShared(ctx context.Context, id string) (*deploy.Deployment, error)
	// LogsShared returns log lines after a sequence number, authorizing
	// nobody.
	LogsShared(ctx context.Context, id string, after int64, limit int) ([]deploy.LogLine, error)
	// View returns what the identity in ctx may see of a deploy ReadShared
	// returned, leaving it untouched. ENOTFOUND (also when not readable),
	// EUNAUTHENTICATED.
	View(ctx context.Context, shared *deploy.Deployment) (*deploy.Deployment, error)
}

// hubPrune is how long a deploy without events or reads keeps its cached
// read: long enough for every subscriber woken by one change to take it.
const hubPrune = time.Minute

// Hub is the live fan-out of one process: it listens to deploy.Events once,
// and reads a changed deploy once for all of its subscribers, however many
// (a wall of screens on the activity feed). Each subscriber then checks its
// own permission on that read in memory (SharedReader.View), at every
// event, so the authorization is the one of Service.Get.
//
// A subscriber never slows the others down: the hub only marks its pending
// deploys (pendingEvents, bounded by the deploys that changed), and a
// subscriber that cannot keep up gets the latest state of each changed
// deploy at its next read: intermediate states of a burst are coalesced.
type Hub struct {
	reader SharedReader
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu sync.Mutex
	// subs are the subscribers by deploy ID, "" for every deploy.
	subs map[string]map[*pendingEvents]bool
	// seq numbers the events received; reads are cached per deploy until
	// its next event.
	seq       uint64
	reads     map[string]*hubEntry
	lastPrune time.Time
	closed    bool
}

// hubEntry is what the hub knows of one deploy: the sequence number of its
// last event and the reads made since.
type hubEntry struct {
	last   uint64
	used   time.Time
	deploy flight[*deploy.Deployment]
	// model is the GraphQL model of the last shared read.
	model *conversion
	// logs are the reads of the log by the sequence number they start after.
	logs map[int64]*flight[[]deploy.LogLine]
}

// flight is one shared read: the subscribers that want it while it runs
// wait for it instead of reading again.
type flight[T any] struct {
	// at is the last event the result reflects: the read started after it.
	at      uint64
	done    bool
	v       T
	err     error
	reading chan struct{}
}

// conversion is the model of one shared read, made by the first
// subscriber that needs it.
type conversion struct {
	of   *deploy.Deployment
	once sync.Once
	m    *model.Deployment
}

// model returns the GraphQL model of d, a read of the deploy id, converted
// once for every subscriber that sees all of it: gqlgen only reads it.
func (h *Hub) model(id string, d *deploy.Deployment) *model.Deployment {
	h.mu.Lock()
	r := h.entry(id, time.Now())
	if r.model == nil || r.model.of != d {
		r.model = &conversion{of: d}
	}
	c := r.model
	h.mu.Unlock()
	c.once.Do(func() { c.m = toModelDeployment(d) })
	return c.m
}

// NewHub starts the fan-out of events; Close stops it.
func NewHub(reader SharedReader, events deploy.Events, log *slog.Logger) *Hub {
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &Hub{
		reader: reader, log: log, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		subs: map[string]map[*pendingEvents]bool{}, reads: map[string]*hubEntry{}, lastPrune: time.Now(),
	}
	// Subscribed before NewHub returns: no event published after it is lost.
	ch := events.Subscribe(ctx, "")
	go h.run(ch)
	return h
}

// Close ends every subscription of the hub and waits for its loop.
func (h *Hub) Close() {
	h.cancel()
	<-h.done
}

func (h *Hub) run(events <-chan deploy.Event) {
	defer close(h.done)
	defer h.end()
	for {
		select {
		case e, ok := <-events:
			if !ok {
				return
			}
			h.dispatch(e)
		case <-h.ctx.Done():
			return
		}
	}
}

func (h *Hub) dispatch(e deploy.Event) {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	r := h.entry(e.DeploymentID, now)
	r.last = h.seq
	r.logs = nil
	for _, id := range []string{"", e.DeploymentID} {
		for p := range h.subs[id] {
			p.add(e)
		}
	}
	if now.Sub(h.lastPrune) > hubPrune {
		h.prune(now)
	}
}

// prune forgets the deploys nobody asked about lately. Their next event
// starts them afresh.
func (h *Hub) prune(now time.Time) {
	h.lastPrune = now
	for id, r := range h.reads {
		if now.Sub(r.used) > hubPrune && r.deploy.reading == nil {
			delete(h.reads, id)
		}
	}
}

// end closes every subscription when the events stop.
func (h *Hub) end() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for _, subs := range h.subs {
		for p := range subs {
			p.end()
		}
	}
	h.subs = map[string]map[*pendingEvents]bool{}
}

// entry is the entry of a deploy, created if needed; h.mu is held.
func (h *Hub) entry(id string, now time.Time) *hubEntry {
	r := h.reads[id]
	if r == nil {
		r = &hubEntry{}
		h.reads[id] = r
	}
	r.used = now
	return r
}

// subscribe collects the events of a deploy ("" for every deploy) until
// ctx ends; log events are dropped when skipLogs is set.
func (h *Hub) subscribe(ctx context.Context, id string, skipLogs bool) *pendingEvents {
	p := newPendingEvents(skipLogs)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		p.end()
		return p
	}
	if h.subs[id] == nil {
		h.subs[id] = map[*pendingEvents]bool{}
	}
	h.subs[id][p] = true
	context.AfterFunc(ctx, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.subs[id], p)
		if len(h.subs[id]) == 0 {
			delete(h.subs, id)
		}
	})
	return p
}

// read returns the deploy as read after its last event, reading it if no
// subscriber has yet. Reads of one deploy run one at a time, so that a
// subscriber never gets an older state after a newer one.
func (h *Hub) read(ctx context.Context, id string) (*deploy.Deployment, error) {
	return share(ctx, &h.mu, func(now time.Time) (*flight[*deploy.Deployment], uint64) {
		r := h.entry(id, now)
		return &r.deploy, r.last
	}, func() (*deploy.Deployment, error) { return h.reader.ReadShared(h.ctx, id) })
}

// logs returns a page of the log after a sequence number, read once for
// the followers at the same line.
func (h *Hub) logs(ctx context.Context, id string, after int64) ([]deploy.LogLine, error) {
	return share(ctx, &h.mu, func(now time.Time) (*flight[[]deploy.LogLine], uint64) {
		r := h.entry(id, now)
		f := r.logs[after]
		if f == nil {
			if r.logs == nil {
				r.logs = map[int64]*flight[[]deploy.LogLine]{}
			}
			f = &flight[[]deploy.LogLine]{}
			r.logs[after] = f
		}
		return f, r.last
	}, func() ([]deploy.LogLine, error) { return h.reader.LogsShared(h.ctx, id, after, logPage) })
}

// share returns the result of the flight that pick gives (under mu) when
// it reflects the last event, waits for the read in flight, or reads. The
// read runs on the hub's context: a subscriber that leaves does not cancel
// it for the others.
func share[T any](ctx context.Context, mu *sync.Mutex, pick func(time.Time) (*flight[T], uint64), read func() (T, error)) (T, error) {
	for {
		mu.Lock()
		f, last := pick(time.Now())
		if f.done && f.at >= last {
			v, err := f.v, f.err
			mu.Unlock()
			return v, err
		}
		if ch := f.reading; ch != nil {
			mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				var zero T
				return zero, ctx.Err()
			}
		}
		ch := make(chan struct{})
		f.reading = ch
		mu.Unlock()
		v, err := read()
		mu.Lock()
		f.v, f.err, f.at, f.done, f.reading = v, err, last, true, nil
		mu.Unlock()
		close(ch)
		return v, err
	}
}
