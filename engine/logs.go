package engine

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"
	"unicode/utf8"

	"manent.dev/manent/deploy"
)

// Limits of the deploy log.
const (
	// maxLineBytes cuts a longer line (a plugin's or a command's output).
	maxLineBytes = 4 << 10
	// maxPendingLines bounds what waits for the database; beyond, lines are
	// counted and dropped, and the count is logged once it is back.
	maxPendingLines = 50_000
	// logBatch is how many lines one transaction writes at most.
	logBatch = 2000
	// logInterval is how long a line may wait for others to share its
	// transaction: the log stays live while a busy worker writes one
	// transaction for all its deploys' lines.
	logInterval = 20 * time.Millisecond
	// notifyInterval is how long the notifications of operations' ends
	// (Notify) wait for lines to share their transaction: each batch is a
	// NOTIFY, whose commit takes a lock of the whole database, and each
	// worker sends its own.
	notifyInterval = 100 * time.Millisecond
)

// logWriter writes deploy log lines in the background, many lines (of many
// deploys) per transaction. A step never waits for its log, and a log line
// never fails a step: while the database is away the lines wait, in order,
// and are written once it is back.
type logWriter struct {
	store deploy.LogStore
	log   *slog.Logger
	// shown is a message as readers see it (Engine.shown).
	shown func(string) string

	// id names this writer's batches to the store, number counts them:
	// a batch sent again after an error keeps its number, so the store
	// writes it once even when the error came after its commit.
	id     string
	number uint64

	mu      sync.Mutex
	pending []deploy.LogLine
	// notes are the changes to notify with the next batch (Notify).
	notes map[deploy.Event]struct{}
	// batch is being written; inflight counts its lines per deploy.
	batch    *deploy.LogBatch
	inflight map[string]int
	dropped  map[string]int
	// queued counts the lines ever queued, written those stored (or given
	// up: their deploy is gone); flushers wait for written to pass a mark.
	queued, written uint64
	// noted counts the calls of Notify, notified those whose events a
	// stored batch carried: flush waits for them too, so a worker that
	// stops still tells the followers of its deploys.
	noted, notified uint64
	// batchNoted is noted when the batch being written was taken.
	batchNoted uint64
	changed    *sync.Cond
	wake       chan struct{}
	// urgent cuts the wait for more lines: someone waits in flush.
	urgent  chan struct{}
	stop    chan struct{}
	done    chan struct{}
	started bool
}

func newLogWriter(store deploy.LogStore, log *slog.Logger, shown func(string) string) *logWriter {
	w := &logWriter{store: store, log: log, shown: shown, id: rand.Text(), notes: map[deploy.Event]struct{}{},
		dropped: map[string]int{}, inflight: map[string]int{},
		wake: make(chan struct{}, 1), urgent: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	w.changed = sync.NewCond(&w.mu)
	return w
}

func (w *logWriter) start() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started {
		w.started = true
		go w.run()
	}
}

// Write queues a line; it never blocks on the database. The line is cut
// as readers see it: escaped, its paths relative.
func (w *logWriter) Write(l deploy.LogLine) {
	if w.shown != nil {
		l.Message = w.shown(l.Message)
	}
	if len(l.Message) > maxLineBytes {
		cut := maxLineBytes
		for cut > 0 && !utf8.RuneStart(l.Message[cut]) {
			cut--
		}
		l.Message = l.Message[:cut] + " …(line cut at 4 KiB)"
	}
	w.mu.Lock()
	if len(w.pending) >= maxPendingLines {
		w.dropped[l.DeploymentID]++
		w.mu.Unlock()
		return
	}
	w.pending = append(w.pending, l)
	w.queued++
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Notify queues the notifications of changes to the deploy id, which its
// caller committed, for the next batch: one transaction notifies the
// changes of every deploy of the process (a NOTIFY serialises the commits
// of the whole database), and a reader that follows a deploy reads it once
// for the changes of a batch. flush, and so a graceful stop, waits for
// them; a process killed may drop them: the next change, or the deploy's
// end, notifies its readers anyway.
func (w *logWriter) Notify(id string, kinds ...deploy.EventKind) {
	if len(kinds) == 0 {
		return
	}
	w.mu.Lock()
	for _, k := range kinds {
		w.notes[deploy.Event{Kind: k, DeploymentID: id}] = struct{}{}
	}
	w.noted++
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// renotify queues again the events of the batch being written, which was
// not stored: they count as not sent (flush waits for them) until a later
// batch carries them.
func (w *logWriter) renotify(events []deploy.Event) {
	if len(events) == 0 {
		return
	}
	w.mu.Lock()
	for _, e := range events {
		w.notes[e] = struct{}{}
	}
	w.batchNoted = w.notified
	w.mu.Unlock()
}

// flush waits until every line queued before the call is stored, and
// every notification queued before it sent, however long the database is
// away; ctx ends the wait.
func (w *logWriter) flush(ctx context.Context) error {
	w.mu.Lock()
	mark, noteMark := w.queued, w.noted
	if w.written >= mark && w.notified >= noteMark {
		w.mu.Unlock()
		return nil
	}
	w.mu.Unlock()
	for _, ch := range []chan struct{}{w.urgent, w.wake} {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	done := make(chan struct{})
	go func() {
		w.mu.Lock()
		for (w.written < mark || w.notified < noteMark) && ctx.Err() == nil {
			w.changed.Wait()
		}
		w.mu.Unlock()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		w.mu.Lock()
		w.changed.Broadcast()
		w.mu.Unlock()
		<-done
		return fmt.Errorf("flush the deploy log: %w", ctx.Err())
	}
}

// close writes what it can until ctx ends, then stops.
func (w *logWriter) close(ctx context.Context) error {
	err := w.flush(ctx)
	w.mu.Lock()
	started := w.started
	w.mu.Unlock()
	close(w.stop)
	if started {
		<-w.done
	}
	return err
}

func (w *logWriter) run() {
	defer close(w.done)
	backoff := 100 * time.Millisecond
	failing := false
	for {
		select {
		case <-w.stop:
			return
		case <-w.wake:
		}
		if !w.gather() {
			return
		}
		for {
			batch := w.take()
			if batch == nil {
				break
			}
			err := w.store.AppendLogBatch(context.Background(), *batch)
			if err != nil && !deploy.Unavailable(err) {
				// Not the database being away: retrying would block every
				// deploy's log behind this batch.
				w.log.Error("deploy log lines not stored", "lines", len(batch.Lines), "error", err)
				err = nil
				if len(batch.Lines) > 0 {
					// The lines were refused, not the notifications of the
					// other deploys: they go with the next batch (alone, a
					// batch refused is dropped, or it would come back).
					w.renotify(batch.Events)
				}
			}
			if err != nil {
				if !failing {
					w.log.Warn("deploy log lines wait for the database", "lines", len(batch.Lines), "error", err)
					failing = true
				}
				select {
				case <-w.stop:
					return
				case <-time.After(backoff):
				}
				backoff = min(2*backoff, 5*time.Second)
				continue
			}
			if failing {
				w.log.Info("deploy log lines written again")
				failing = false
			}
			backoff = 100 * time.Millisecond
			w.done1(len(batch.Lines))
		}
	}
}

// gather waits for more to share the next batch's transaction: lines for
// logInterval, notifications alone for notifyInterval (a line that comes
// meanwhile shortens the wait to its own), unless someone waits in flush.
// It answers false once the writer stops.
func (w *logWriter) gather() bool {
	w.mu.Lock()
	notesOnly := len(w.pending) == 0 && w.batch == nil
	w.mu.Unlock()
	wait := logInterval
	if notesOnly {
		wait = notifyInterval
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-w.stop:
			return false
		case <-w.urgent:
			return true
		case <-timer.C:
			return true
		case <-w.wake:
			w.mu.Lock()
			lines := len(w.pending) > 0
			w.mu.Unlock()
			if notesOnly && lines {
				notesOnly = false
				timer.Reset(logInterval)
			}
		}
	}
}

// take returns the batch to write, nil for none: the one that failed last
// time, or the oldest pending lines, in order, with a line for each deploy
// whose lines were dropped, and the pending notifications.
func (w *logWriter) take() *deploy.LogBatch {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.batch != nil {
		return w.batch
	}
	if len(w.dropped) > 0 {
		ids := make([]string, 0, len(w.dropped))
		for id := range w.dropped {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			w.pending = append(w.pending, deploy.LogLine{DeploymentID: id, Time: time.Now().UTC(), Level: "warn",
				Message: fmt.Sprintf("%d log line(s) were lost while the database was unavailable", w.dropped[id])})
			w.queued++
		}
		clear(w.dropped)
	}
	n := min(len(w.pending), logBatch)
	if n == 0 && len(w.notes) == 0 {
		return nil
	}
	b := &deploy.LogBatch{Writer: w.id}
	if n > 0 {
		w.number++
		b.Number = w.number
		b.Lines = slices.Clone(w.pending[:n])
		w.pending = slices.Delete(w.pending, 0, n)
		for _, l := range b.Lines {
			w.inflight[l.DeploymentID]++
		}
	}
	for e := range w.notes {
		b.Events = append(b.Events, e)
	}
	clear(w.notes)
	w.batchNoted = w.noted
	w.batch = b
	return b
}

func (w *logWriter) done1(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.batch = nil
	clear(w.inflight)
	w.written += uint64(n)
	w.notified = max(w.notified, w.batchNoted)
	w.changed.Broadcast()
}

// claim takes the pending lines of one deploy out of the queue, once the
// lines of it already being written are stored, so that the caller writes
// them in its own transaction (the deploy's outcome): in order, and
// complete when the state is final.
func (w *logWriter) claim(ctx context.Context, id string) ([]deploy.LogLine, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		w.mu.Lock()
		w.changed.Broadcast()
		w.mu.Unlock()
	})
	defer stop()
	for w.inflight[id] > 0 {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("claim the deploy log: %w", ctx.Err())
		}
		w.changed.Wait()
	}
	var mine []deploy.LogLine
	rest := w.pending[:0]
	for _, l := range w.pending {
		if l.DeploymentID == id {
			mine = append(mine, l)
		} else {
			rest = append(rest, l)
		}
	}
	w.pending = rest
	// Taken over by the caller: counted as written for flush.
	w.written += uint64(len(mine))
	if n := w.dropped[id]; n > 0 {
		mine = append(mine, deploy.LogLine{DeploymentID: id, Time: time.Now().UTC(), Level: "warn",
			Message: fmt.Sprintf("%d log line(s) were lost while the database was unavailable", n)})
		delete(w.dropped, id)
	}
	w.changed.Broadcast()
	return mine, nil
}

// unclaim gives back lines claim took that their transaction did not
// write (the process stops): they go first, in order, so that they are
// written before the process ends, or with the next batch.
func (w *logWriter) unclaim(lines []deploy.LogLine) {
	if len(lines) == 0 {
		return
	}
	w.mu.Lock()
	w.pending = append(slices.Clone(lines), w.pending...)
	w.queued += uint64(len(lines))
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}
