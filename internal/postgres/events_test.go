package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/postgres"
)

const eventWait = 30 * time.Second

func (f *fixture) events() *postgres.Events {
	f.t.Helper()
	ev := postgres.NewEvents(f.url, slog.New(slog.DiscardHandler))
	f.t.Cleanup(ev.Close)
	ctx, cancel := context.WithTimeout(f.ctx, eventWait)
	defer cancel()
	if err := ev.Ready(ctx); err != nil {
		f.t.Fatal(err)
	}
	return ev
}

// waitFor reads ch until an event matching want arrives.
func waitFor(t *testing.T, ch <-chan deploy.Event, want deploy.Event) {
	t.Helper()
	deadline := time.After(eventWait)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("channel closed while waiting for %+v", want)
			}
			if ev == want {
				return
			}
		case <-deadline:
			t.Fatalf("no %+v within %s", want, eventWait)
		}
	}
}

func TestEventsDeliverWritesOfAnotherConnection(t *testing.T) {
	f := newFixture(t)
	ev := f.events()
	ctx, cancel := context.WithCancel(f.ctx)
	defer cancel()
	one := ev.Subscribe(ctx, "x")
	all := ev.Subscribe(ctx, "")

	f.create(deployment("y", "prod"))
	waitFor(t, all, deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "y"})
	f.pending("x", "staging")
	f.begin(deploy.Step{DeploymentID: "x", Name: deploy.StepConfig})
	if err := f.store.AppendLog(f.ctx, deploy.LogLine{DeploymentID: "x", Message: "hello"}); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []<-chan deploy.Event{one, all} {
		waitFor(t, ch, deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "x"})
		waitFor(t, ch, deploy.Event{Kind: deploy.EventStep, DeploymentID: "x"})
		waitFor(t, ch, deploy.Event{Kind: deploy.EventLog, DeploymentID: "x"})
	}
	// Everything for x has been read; nothing of y may be queued for x.
	for {
		select {
		case e := <-one:
			if e.DeploymentID != "x" {
				t.Errorf("subscriber of x got %+v", e)
			}
			continue
		default:
		}
		break
	}
}

// After the listener's connection is cut, it reconnects and tells every
// subscriber to re-read, then delivers new events again.
func TestEventsReconnect(t *testing.T) {
	f := newFixture(t)
	ev := f.events()
	f.pending("x", "staging")
	sub := ev.Subscribe(f.ctx, "x")
	logLine := func() {
		t.Helper()
		if err := f.store.AppendLog(f.ctx, deploy.LogLine{DeploymentID: "x", Message: "m"}); err != nil {
			t.Fatal(err)
		}
	}
	logLine()
	waitFor(t, sub, deploy.Event{Kind: deploy.EventLog, DeploymentID: "x"})

	if n := f.count("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'manent events' AND datname = current_database()"); n != 1 {
		t.Fatalf("terminated %d listener connections, want 1", n)
	}
	// Only log lines are written from here on: a deployment event is the
	// synthetic one of the reconnection.
	waitFor(t, sub, deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "x"})
	logLine()
	waitFor(t, sub, deploy.Event{Kind: deploy.EventLog, DeploymentID: "x"})
}

// A subscriber that does not read never blocks the others, and when it reads
// again the last event of the burst is the last it gets.
func TestEventsSlowSubscriberGetsTheLatest(t *testing.T) {
	f := newFixture(t)
	ev := f.events()
	slow := ev.Subscribe(f.ctx, "")
	fast := ev.Subscribe(f.ctx, "")
	const n = 500
	if err := f.exec(`SELECT pg_notify(?, json_build_object('kind', 'deployment', 'id', 'n' || g)::text) FROM generate_series(1, ?) AS g`,
		postgres.Channel, n); err != nil {
		t.Fatal(err)
	}
	last := deploy.Event{Kind: deploy.EventDeployment, DeploymentID: fmt.Sprintf("n%d", n)}
	waitFor(t, fast, last)
	var got []deploy.Event
	for len(slow) > 0 {
		got = append(got, <-slow)
	}
	if len(got) == 0 || len(got) >= n || got[len(got)-1] != last {
		t.Fatalf("slow subscriber got %d events ending with %v; want fewer than %d ending with %v", len(got), got[len(got)-1:], n, last)
	}
}

func TestEventsIgnoreForeignPayloads(t *testing.T) {
	f := newFixture(t)
	ev := f.events()
	sub := ev.Subscribe(f.ctx, "")
	if err := f.exec("SELECT pg_notify(?, 'not json'), pg_notify(?, '{}')", postgres.Channel, postgres.Channel); err != nil {
		t.Fatal(err)
	}
	f.create(deployment("z", "qa"))
	select {
	case e := <-sub:
		if e != (deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "z"}) {
			t.Errorf("first event %+v", e)
		}
	case <-time.After(eventWait):
		t.Fatal("no event")
	}
}

func TestEventsChannelsClose(t *testing.T) {
	f := newFixture(t)
	ev := postgres.NewEvents(f.url, nil)
	ctx, cancel := context.WithCancel(f.ctx)
	gone := ev.Subscribe(ctx, "a")
	kept := ev.Subscribe(f.ctx, "b")
	cancel()
	waitClosed(t, gone)
	ev.Close()
	waitClosed(t, kept)
	waitClosed(t, ev.Subscribe(f.ctx, "c"))
	ev.Close() // twice is fine
}

func waitClosed(t *testing.T, ch <-chan deploy.Event) {
	t.Helper()
	deadline := time.After(eventWait)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("channel not closed")
		}
	}
}

// Each write of the Recorder notifies, when its transaction commits, what
// it changed, and nothing else; a write that changed nothing notifies
// nothing, and a transaction rolled back notifies nothing at all.
func TestRecorderNotifies(t *testing.T) {
	f := newFixture(t)
	ev := f.events()
	step, dep, logs := deploy.EventStep, deploy.EventDeployment, deploy.EventLog
	line := func(id string) []deploy.LogLine {
		return []deploy.LogLine{{DeploymentID: id, Time: time.Now(), Message: "m"}}
	}
	tests := []struct {
		name  string
		setup func(id string) // nil: a deploy started
		write func(q dbos.Querier, id string) error
		want  []deploy.EventKind // when committed, in order
	}{
		{"start", func(id string) { f.create(deployment(id, "staging")) }, func(q dbos.Querier, id string) error {
			_, err := f.rec.StartRun(f.ctx, q, id, time.Now(), false)
			return err
		}, []deploy.EventKind{dep}},
		// The engine sends it itself once the start committed.
		{"start, notified later", func(id string) { f.create(deployment(id, "staging")) }, func(q dbos.Querier, id string) error {
			ok, err := f.rec.StartRun(f.ctx, q, id, time.Now(), true)
			if err == nil && !ok {
				return errors.New("StartRun = false, want true")
			}
			return err
		}, nil},
		{"start of a cancelled deploy", func(id string) { f.create(deployment(id, "staging")); f.cancel(id) }, func(q dbos.Querier, id string) error {
			ok, err := f.rec.StartRun(f.ctx, q, id, time.Now(), false)
			if err == nil && ok {
				return errors.New("StartRun of a cancelled deploy = true, want false")
			}
			return err
		}, nil},
		{"begin", nil, func(q dbos.Querier, id string) error {
			_, err := f.rec.Advance(f.ctx, q, nil, deploy.StepEffects{}, op(id, "config", deploy.StepRunning), deploy.BeginOptions{})
			return err
		}, []deploy.EventKind{step, dep}},
		{"end", func(id string) { f.pending(id, id); f.begin(*op(id, "config", "")) }, func(q dbos.Querier, id string) error {
			_, err := f.rec.Advance(f.ctx, q, op(id, "config", deploy.StepSuccess), deploy.StepEffects{}, nil, deploy.BeginOptions{})
			return err
		}, []deploy.EventKind{step, dep}},
		// The engine sends these itself once the statement committed (with
		// the log writer's next batch, TestLogBatchNotifies).
		{"end, notified later", func(id string) { f.pending(id, id); f.begin(*op(id, "config", "")) }, func(q dbos.Querier, id string) error {
			_, err := f.rec.Advance(f.ctx, q, op(id, "config", deploy.StepSuccess), deploy.StepEffects{}, op(id, "secrets", deploy.StepRunning),
				deploy.BeginOptions{NotifyLater: true})
			return err
		}, nil},
		{"end in service", func(id string) { f.pending(id, id); f.begin(*op(id, "activation", "")) }, func(q dbos.Querier, id string) error {
			_, err := f.rec.Advance(f.ctx, q, op(id, "activation", deploy.StepSuccess), deploy.StepEffects{InService: true}, nil, deploy.BeginOptions{})
			return err
		}, []deploy.EventKind{step, dep}},
		{"rollback", nil, func(q dbos.Querier, id string) error {
			return f.rec.SetRollback(f.ctx, q, id, deploy.RollbackRunning)
		}, []deploy.EventKind{dep}},
		{"skip", nil, func(q dbos.Querier, id string) error {
			return f.rec.SkipSteps(f.ctx, q, id, []deploy.Step{*op(id, "deploy", deploy.StepSkipped)})
		}, []deploy.EventKind{step}},
		{"log", nil, func(q dbos.Querier, id string) error {
			return f.rec.AppendLog(f.ctx, q, id, line(id))
		}, []deploy.EventKind{logs}},
		{"log of a deploy that is gone", func(string) {}, func(q dbos.Querier, id string) error {
			return f.rec.AppendLog(f.ctx, q, id, line(id))
		}, nil},
		{"finish", nil, func(q dbos.Querier, id string) error {
			_, err := f.rec.FinishRun(f.ctx, q, deploy.Outcome{ID: id, State: deploy.StateSuccess})
			return err
		}, []deploy.EventKind{dep}},
		// As the engine finishes: the last lines, the skips and the outcome
		// in one transaction.
		{"finish with its last lines and skips", nil, func(q dbos.Querier, id string) error {
			if err := f.rec.AppendLog(f.ctx, q, id, line(id)); err != nil {
				return err
			}
			if err := f.rec.SkipSteps(f.ctx, q, id, []deploy.Step{*op(id, "deploy", deploy.StepSkipped)}); err != nil {
				return err
			}
			_, err := f.rec.FinishRun(f.ctx, q, deploy.Outcome{ID: id, State: deploy.StateError, Error: "boom"})
			return err
		}, []deploy.EventKind{logs, step, dep}},
		{"finish of a deploy already final", func(id string) {
			f.pending(id, id)
			f.finish(deploy.Outcome{ID: id, State: deploy.StateSuccess})
		}, func(q dbos.Querier, id string) error {
			_, err := f.rec.FinishRun(f.ctx, q, deploy.Outcome{ID: id, State: deploy.StateError})
			return err
		}, nil},
	}
	for _, tt := range tests {
		for _, commit := range []bool{true, false} {
			name, id := tt.name, "n-"+slug(tt.name)
			if !commit {
				name, id = tt.name+", rolled back", id+"-rb"
			}
			t.Run(name, func(t *testing.T) {
				if tt.setup != nil {
					tt.setup(id)
				} else {
					f.pending(id, id)
				}
				sub := ev.Subscribe(f.ctx, id)
				// Notifications arrive in the order of commits: once the
				// first sentinel is read, so are those of the setup; once
				// the second is, so are those of the write.
				before := f.sentinel(t, id, "before")
				waitFor(t, sub, before)
				run := f.inTx
				if !commit {
					run = f.rolledBack
				}
				if err := run(func(q dbos.Querier) error { return tt.write(q, id) }); err != nil {
					t.Fatal(err)
				}
				want := tt.want
				if !commit {
					want = nil
				}
				if got := kindsUntil(t, sub, f.sentinel(t, id, "after")); !slices.Equal(got, want) {
					t.Errorf("notified %q, want %q", got, want)
				}
			})
		}
	}
}

// sentinel notifies an event of kind for id, in a transaction of its own.
func (f *fixture) sentinel(t *testing.T, id string, kind deploy.EventKind) deploy.Event {
	t.Helper()
	ev := deploy.Event{Kind: kind, DeploymentID: id}
	payload, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.exec("SELECT pg_notify(?, ?)", postgres.Channel, string(payload)); err != nil {
		t.Fatal(err)
	}
	return ev
}

// kindsUntil reads ch up to the event until and answers the kinds of the
// events before it.
func kindsUntil(t *testing.T, ch <-chan deploy.Event, until deploy.Event) []deploy.EventKind {
	t.Helper()
	var kinds []deploy.EventKind
	deadline := time.After(eventWait)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("channel closed while waiting for %+v", until)
			}
			if ev == until {
				return kinds
			}
			kinds = append(kinds, ev.Kind)
		case <-deadline:
			t.Fatalf("no %+v within %s", until, eventWait)
		}
	}
}

// A batch of the log writer notifies the events it carries with the log
// events of its lines, in its transaction, and a batch of events alone
// notifies them; a batch of lines sent again notifies its events again
// but not its lines' (they are not written again).
func TestLogBatchNotifies(t *testing.T) {
	f := newFixture(t)
	ev := f.events()
	step, dep, logs := deploy.EventStep, deploy.EventDeployment, deploy.EventLog
	line := func(id string) []deploy.LogLine {
		return []deploy.LogLine{{DeploymentID: id, Time: time.Now(), Message: "m"}}
	}
	events := func(id string) []deploy.Event {
		return []deploy.Event{{Kind: step, DeploymentID: id}, {Kind: dep, DeploymentID: id}}
	}
	tests := []struct {
		name  string
		batch func(id string) deploy.LogBatch
		want  []deploy.EventKind
	}{
		{"events alone", func(id string) deploy.LogBatch { return deploy.LogBatch{Events: events(id)} }, []deploy.EventKind{step, dep}},
		{"lines and events", func(id string) deploy.LogBatch {
			return deploy.LogBatch{Writer: "w-" + id, Number: 1, Lines: line(id), Events: events(id)}
		}, []deploy.EventKind{logs, step, dep}},
		{"lines and events sent again", func(id string) deploy.LogBatch {
			b := deploy.LogBatch{Writer: "w-" + id, Number: 1, Lines: line(id), Events: events(id)}
			if err := f.store.AppendLogBatch(f.ctx, b); err != nil {
				t.Fatal(err)
			}
			return b
		}, []deploy.EventKind{step, dep}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := "b-" + slug(tt.name)
			f.pending(id, id)
			sub := ev.Subscribe(f.ctx, id)
			b := tt.batch(id)
			waitFor(t, sub, f.sentinel(t, id, "before"))
			if err := f.store.AppendLogBatch(f.ctx, b); err != nil {
				t.Fatal(err)
			}
			if got := kindsUntil(t, sub, f.sentinel(t, id, "after")); !slices.Equal(got, tt.want) {
				t.Errorf("notified %q, want %q", got, tt.want)
			}
		})
	}
}
