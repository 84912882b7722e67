package graph

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

// Kinds of Update, shared by the GraphQL subscriptions and the SSE stream.
const (
	KindSnapshot = "snapshot"
	KindState    = "state"
	KindStep     = "step"
	KindLog      = "log"
)

// logPage is the most log lines one Update carries; a longer backlog is sent
// as several log updates.
const logPage = 1000

// Update is one change of a deploy pushed to a live client: the deploy as
// the caller may read it now and the log lines added since the previous
// update.
type Update struct {
	Kind       string
	Deployment *deploy.Deployment
	Logs       []deploy.LogLine
	// model is Deployment converted once for every subscriber that sees
	// all of it (Hub.model); nil when this caller's view is its own.
	model *model.Deployment
}

// Live turns the events of deploy.Events into updates for one caller. Every
// event is authorized again with the caller's context: through the Service
// without a Hub, through the Hub's shared read and SharedReader.View with
// one.
type Live struct {
	Service deploy.Service
	Events  deploy.Events
	// Hub, when set, reads each change once for every subscriber of the
	// process; without it each subscriber reads it through Service.
	Hub    *Hub
	Logger *slog.Logger
}

// subscribe collects the events of a deploy ("" for every deploy).
func (l Live) subscribe(ctx context.Context, id string, skipLogs bool) *pendingEvents {
	if l.Hub != nil {
		return l.Hub.subscribe(ctx, id, skipLogs)
	}
	return drain(ctx, l.Events.Subscribe(ctx, id), skipLogs)
}

// get reads a deploy after an event as the caller may see it, with its
// model when it is shared. ENOTFOUND (also when not readable),
// EUNAUTHENTICATED.
func (l Live) get(ctx context.Context, id string) (*deploy.Deployment, *model.Deployment, error) {
	if l.Hub == nil {
		d, err := l.Service.Get(ctx, id)
		return d, nil, err
	}
	shared, err := l.Hub.read(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	d, err := l.Hub.reader.View(ctx, shared)
	if err != nil {
		return nil, nil, err
	}
	if d != shared {
		return d, nil, nil
	}
	return d, l.Hub.model(id, shared), nil
}

// logs reads a page of the log of a deploy that get has just let the
// caller read.
func (l Live) logs(ctx context.Context, id string, after int64) ([]deploy.LogLine, error) {
	if l.Hub == nil {
		return l.Service.Logs(ctx, id, after, logPage)
	}
	return l.Hub.logs(ctx, id, after)
}

// Follow streams the updates of one deploy: first a snapshot with the log
// lines after logsAfter, then an update per change. The channel closes
// after the update that carries a final state (with every remaining log
// line), when the caller may no longer read the deploy, on an error, or
// when ctx ends. An error is returned only when the deploy cannot be read at
// the start (ENOTFOUND, EUNAUTHENTICATED, ...).
func (l Live) Follow(ctx context.Context, id string, logsAfter int64) (<-chan Update, error) {
	ctx, cancel := context.WithCancel(ctx)
	// Subscribe before reading the snapshot: a change made in between is
	// then seen as an event instead of being lost.
	pending := l.subscribe(ctx, id, false)
	d, err := l.Service.Get(ctx, id)
	if err != nil {
		cancel()
		return nil, err
	}
	lines, err := l.Service.Logs(ctx, id, logsAfter, logPage)
	if err != nil {
		cancel()
		return nil, err
	}
	out := make(chan Update)
	go func() {
		defer cancel()
		defer close(out)
		f := follower{Live: l, id: id, out: out, seq: logsAfter}
		if !f.send(ctx, Update{Kind: KindSnapshot, Deployment: d, Logs: lines}) || d.State.Terminal() {
			return
		}
		for {
			kinds, ok := pending.wait(ctx)
			if !ok {
				return
			}
			if !f.next(ctx, kinds) {
				return
			}
		}
	}()
	return out, nil
}

type follower struct {
	Live
	id  string
	out chan<- Update
	// seq is the last log line sent; state the last state sent.
	seq   int64
	state deploy.State
}

// next re-reads the deploy after events of the given kinds and sends the
// update; false ends the stream.
func (f *follower) next(ctx context.Context, kinds map[deploy.EventKind]bool) bool {
	d, m, err := f.get(ctx, f.id)
	if err != nil {
		f.logError(ctx, "follow deploy: read", err)
		return false
	}
	lines, err := f.logs(ctx, f.id, f.seq)
	if err != nil {
		f.logError(ctx, "follow deploy: read log", err)
		return false
	}
	kind := updateKind(kinds)
	if d.State != f.state {
		// Events of a burst are merged: a change of state may arrive with a
		// log event.
		kind = KindState
	}
	if kind == KindLog && len(lines) == 0 {
		return true // a burst whose lines were already sent
	}
	return f.send(ctx, Update{Kind: kind, Deployment: d, Logs: lines, model: m}) && !d.State.Terminal()
}

// send sends an update with the first page of lines, then the rest of the
// log as log updates, so that a final state is always followed by every
// line written before it.
//
// A page shorter than logPage ends the log: the Service honours limits up
// to logPage.
func (f *follower) send(ctx context.Context, u Update) bool {
	f.state = u.Deployment.State
	for {
		if len(u.Logs) > 0 {
			f.seq = u.Logs[len(u.Logs)-1].Seq
		}
		u.Logs = nonNil(u.Logs)
		if !sendUpdate(ctx, f.out, u) {
			return false
		}
		if len(u.Logs) < logPage {
			return true
		}
		lines, err := f.logs(ctx, f.id, f.seq)
		if err != nil {
			f.logError(ctx, "follow deploy: read log", err)
			return false
		}
		if len(lines) == 0 {
			return true
		}
		u.Kind, u.Logs = KindLog, lines
	}
}

// Activity streams an update for every change of a deploy the caller may
// read (log lines excepted: the feed shows states and steps). It ends when
// ctx ends or the events stop.
func (l Live) Activity(ctx context.Context) <-chan Update {
	ctx, cancel := context.WithCancel(ctx)
	pending := l.subscribe(ctx, "", true)
	out := make(chan Update)
	go func() {
		defer cancel()
		defer close(out)
		for {
			byID, ok := pending.waitByID(ctx)
			if !ok {
				return
			}
			for _, id := range slices.Sorted(maps.Keys(byID)) {
				d, m, err := l.get(ctx, id)
				if err != nil {
					// ENOTFOUND is also what an unreadable deploy gives: skip it.
					if deploy.ErrorCode(err) == deploy.EINTERNAL {
						l.logError(ctx, "activity: read deploy", err)
					}
					if ctx.Err() != nil {
						return
					}
					continue
				}
				if !sendUpdate(ctx, out, Update{Kind: updateKind(byID[id]), Deployment: d, Logs: []deploy.LogLine{}, model: m}) {
					return
				}
			}
		}
	}()
	return out
}

func (l Live) logError(ctx context.Context, msg string, err error) {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || deploy.ErrorCode(err) != deploy.EINTERNAL {
		// The client went away, the server is closing (the Hub's reads run
		// on its own context), or the caller lost access: nothing to
		// investigate.
		return
	}
	log := l.Logger
	if log == nil {
		log = slog.Default()
	}
	log.ErrorContext(ctx, msg, "error", err)
}

// updateKind names a burst of events after its most significant kind.
func updateKind(kinds map[deploy.EventKind]bool) string {
	switch {
	case kinds[deploy.EventDeployment]:
		return KindState
	case kinds[deploy.EventStep]:
		return KindStep
	default:
		return KindLog
	}
}

func sendUpdate(ctx context.Context, out chan<- Update, u Update) bool {
	select {
	case out <- u:
		return true
	case <-ctx.Done():
		return false
	}
}

func nonNil(lines []deploy.LogLine) []deploy.LogLine {
	if lines == nil {
		return []deploy.LogLine{}
	}
	return lines
}

// pendingEvents collects the events of a subscription as they arrive, so
// that the fan-out of deploy.Events never waits for a slow client: bursts
// are merged while the client's loop reads the deploy and writes to it.
//
// What it holds is bounded by the deploys that changed, whatever the number
// of events: a subscriber that cannot keep up is never dropped, its bursts
// are coalesced into the latest state of each deploy.
type pendingEvents struct {
	// skipLogs drops log events (the activity feed shows none).
	skipLogs bool
	mu       sync.Mutex
	byID     map[string]map[deploy.EventKind]bool
	signal   chan struct{}
	closed   chan struct{}
	ended    sync.Once
}

func newPendingEvents(skipLogs bool) *pendingEvents {
	return &pendingEvents{
		skipLogs: skipLogs,
		byID:     map[string]map[deploy.EventKind]bool{},
		signal:   make(chan struct{}, 1),
		closed:   make(chan struct{}),
	}
}

// drain reads events until the channel closes or ctx ends.
func drain(ctx context.Context, events <-chan deploy.Event, skipLogs bool) *pendingEvents {
	p := newPendingEvents(skipLogs)
	go func() {
		defer p.end()
		for {
			select {
			case e, ok := <-events:
				if !ok {
					return
				}
				p.add(e)
			case <-ctx.Done():
				return
			}
		}
	}()
	return p
}

// end tells the subscriber that no event will come any more.
func (p *pendingEvents) end() { p.ended.Do(func() { close(p.closed) }) }

func (p *pendingEvents) add(e deploy.Event) {
	if p.skipLogs && e.Kind == deploy.EventLog {
		return
	}
	p.mu.Lock()
	kinds := p.byID[e.DeploymentID]
	if kinds == nil {
		kinds = map[deploy.EventKind]bool{}
		p.byID[e.DeploymentID] = kinds
	}
	kinds[e.Kind] = true
	p.mu.Unlock()
	select {
	case p.signal <- struct{}{}:
	default:
	}
}

// waitByID blocks until events are pending and takes them; false when the
// subscription ended.
func (p *pendingEvents) waitByID(ctx context.Context) (map[string]map[deploy.EventKind]bool, bool) {
	select {
	case <-p.signal:
	case <-p.closed:
		// Events still pending win over the end of the subscription: the
		// last one before it may be the final state.
		select {
		case <-p.signal:
		default:
			return nil, false
		}
	case <-ctx.Done():
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	taken := p.byID
	p.byID = map[string]map[deploy.EventKind]bool{}
	return taken, true
}

// wait is waitByID for a subscription to one deploy.
func (p *pendingEvents) wait(ctx context.Context) (map[deploy.EventKind]bool, bool) {
	byID, ok := p.waitByID(ctx)
	if !ok {
		return nil, false
	}
	kinds := map[deploy.EventKind]bool{}
	for _, k := range byID {
		for kind := range k {
			kinds[kind] = true
		}
	}
	return kinds, true
}
