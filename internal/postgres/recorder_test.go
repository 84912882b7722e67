package postgres_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

func TestStartRun(t *testing.T) {
	f := newFixture(t)
	f.create(deployment("q", "staging"))
	f.create(deployment("c", "prod"))
	f.create(deployment("q2", "dev"))
	f.create(deployment("c2", "qa"))
	for _, id := range []string{"c", "c2"} {
		if _, err := f.store.RequestCancel(f.ctx, id, "token:ci"); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		name, id string
		at       time.Time
		later    bool // notifications left to the caller
		want     bool
		code     deploy.Code
		state    deploy.State
	}{
		{"enqueued starts", "q", at, false, true, "", deploy.StatePending},
		// A run resumed on another process did start, when it did first.
		{"already started", "q", at.Add(time.Hour), false, true, "", deploy.StatePending},
		{"cancelled while queued", "c", at, false, false, "", deploy.StateCancelled},
		{"unknown", "nope", at, false, false, deploy.ENOTFOUND, ""},
		{"enqueued starts, notified later", "q2", at, true, true, "", deploy.StatePending},
		{"already started, notified later", "q2", at.Add(time.Hour), true, true, "", deploy.StatePending},
		{"cancelled while queued, notified later", "c2", at, true, false, "", deploy.StateCancelled},
		{"unknown, notified later", "nope", at, true, false, deploy.ENOTFOUND, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got bool
			err := f.inTx(func(q dbos.Querier) (err error) {
				got, err = f.rec.StartRun(f.ctx, q, tt.id, tt.at, tt.later)
				return err
			})
			wantCode(t, err, tt.code)
			if got != tt.want {
				t.Errorf("StartRun = %v, want %v", got, tt.want)
			}
			if tt.state != "" {
				if d := f.get(tt.id); d.State != tt.state {
					t.Errorf("state %s, want %s", d.State, tt.state)
				}
			}
		})
	}
	for _, id := range []string{"q", "q2"} {
		if d := f.get(id); d.StartedAt == nil || !d.StartedAt.Equal(at) {
			t.Errorf("%s: started_at %v, want %v", id, d.StartedAt, at)
		}
	}
	for _, id := range []string{"c", "c2"} {
		if d := f.get(id); d.StartedAt != nil {
			t.Errorf("%s: a cancelled deploy started at %v", id, d.StartedAt)
		}
	}
}

// op is the record of an operation of deploy id: kind and key by name
// ("checkpoint:deploy", "deploy@web-1").
func op(id, name string, state deploy.StepState) *deploy.Step {
	s := &deploy.Step{DeploymentID: id, Name: name, Kind: deploy.KindRun, State: state, Position: 2, Type: deploy.StepTypeStandard}
	if kind, step, ok := strings.Cut(name, ":"); ok {
		s.Kind, s.Name = deploy.StepKind(kind), step
	}
	if step, target, ok := strings.Cut(s.Name, "@"); ok {
		s.Name, s.Target = step, target
	}
	return s
}

// records summarises the records of a deploy: name, state and runs, sorted.
func (f *fixture) records(id string) []string {
	f.t.Helper()
	var out []string
	for _, s := range f.get(id).Steps {
		out = append(out, fmt.Sprintf("%s %s %d", s.Key().Name(), s.State, s.Runs))
	}
	slices.Sort(out)
	return out
}

func (f *fixture) cancel(id string) {
	f.t.Helper()
	if _, err := f.store.RequestCancel(f.ctx, id, "token:ops"); err != nil {
		f.t.Fatal(err)
	}
}

func TestAdvance(t *testing.T) {
	f := newFixture(t)
	honour := deploy.BeginOptions{HonourCancel: true}
	hourAgo := time.Now().UTC().Add(-time.Hour).Truncate(time.Microsecond)
	tests := []struct {
		name    string
		unknown bool
		setup   func(id string)
		done    string // the operation that ended (SUCCESS), "" for none
		next    string // the operation that begins, "" for none
		o       deploy.BeginOptions
		want    *deploy.Begun
		code    deploy.Code
		current string
		records []string
		// kept is the start the record keeps, when not the one written.
		kept *time.Time
	}{
		{name: "nothing", want: nil, records: nil},
		{name: "begin only", next: "config", o: honour, want: &deploy.Begun{}, current: "config",
			records: []string{"config RUNNING 1"}},
		{name: "end and begin", setup: func(id string) { f.begin(*op(id, "config", "")) }, done: "config", next: "artifacts", o: honour,
			want: &deploy.Begun{}, current: "artifacts", records: []string{"artifacts RUNNING 1", "config SUCCESS 1"}},
		{name: "end only", setup: func(id string) { f.begin(*op(id, "config", "")) }, done: "config",
			want: nil, current: "", records: []string{"config SUCCESS 1"}},
		{name: "the end of another operation keeps the current one", setup: func(id string) {
			f.begin(*op(id, "deploy@web-1", ""))
			f.begin(*op(id, "deploy@web-2", ""))
		}, done: "deploy@web-1", want: nil, current: "deploy@web-2", records: []string{"deploy@web-1 SUCCESS 1", "deploy@web-2 RUNNING 1"}},
		{name: "a start written again is no second run", setup: func(id string) { f.begin(*op(id, "config", "")) }, next: "config", o: honour,
			want: &deploy.Begun{}, current: "config", records: []string{"config RUNNING 1"}},
		{name: "a start written again keeps the first", setup: func(id string) {
			first := op(id, "config", "")
			first.StartedAt = &hourAgo
			f.begin(*first)
		}, next: "config", o: honour, want: &deploy.Begun{}, current: "config", records: []string{"config RUNNING 1"}, kept: &hourAgo},
		{name: "cancel requested: the next does not begin", setup: func(id string) {
			f.begin(*op(id, "config", ""))
			f.cancel(id)
		}, done: "config", next: "artifacts", o: honour, want: &deploy.Begun{Cancelled: true, CancelledBy: "token:ops"}, current: "", records: []string{"config SUCCESS 1"}},
		{name: "cancel requested before the first", setup: f.cancel, next: "config", o: honour,
			want: &deploy.Begun{Cancelled: true, CancelledBy: "token:ops"}, current: "", records: nil},
		{name: "cancel requested: a compensation begins all the same", setup: func(id string) {
			f.begin(*op(id, "deploy", ""))
			f.cancel(id)
		}, done: "deploy", next: "rollback:deploy", want: &deploy.Begun{}, current: "rollback:deploy",
			records: []string{"deploy SUCCESS 1", "rollback:deploy RUNNING 1"}},
		{name: "read in service: none", next: "checkpoint:activation", o: deploy.BeginOptions{HonourCancel: true, ReadInService: true},
			want: &deploy.Begun{}, current: "checkpoint:activation", records: []string{"checkpoint:activation RUNNING 1"}},
		{name: "read in service", setup: func(id string) {
			prev := deployment(id+"-prev", id)
			f.ended(prev, deploy.Outcome{State: deploy.StateSuccess, InService: true})
		}, next: "checkpoint:activation", o: deploy.BeginOptions{HonourCancel: true, ReadInService: true},
			want: &deploy.Begun{InService: "read-in-service-prev"}, current: "checkpoint:activation",
			records: []string{"checkpoint:activation RUNNING 1"}},
		{name: "read in service: not asked", setup: func(id string) {
			f.ended(deployment(id+"-prev", id), deploy.Outcome{State: deploy.StateSuccess, InService: true})
		}, next: "checkpoint:activation", o: honour, want: &deploy.Begun{}, current: "checkpoint:activation",
			records: []string{"checkpoint:activation RUNNING 1"}},
		{name: "unknown deploy, end", unknown: true, done: "config", code: deploy.ENOTFOUND},
		{name: "unknown deploy, begin", unknown: true, next: "config", o: honour, code: deploy.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := slug(tt.name)
			if !tt.unknown {
				f.pending(id, id)
			}
			if tt.setup != nil {
				tt.setup(id)
			}
			var done, next *deploy.Step
			if tt.done != "" {
				now := time.Now()
				done = op(id, tt.done, deploy.StepSuccess)
				done.Attempts, done.FinishedAt = 1, &now
			}
			if tt.next != "" {
				now := time.Now()
				next = op(id, tt.next, deploy.StepRunning)
				next.StartedAt = &now
			}
			got, err := f.advance(done, deploy.StepEffects{}, next, tt.o)
			wantCode(t, err, tt.code)
			var started *time.Time
			if got != nil {
				started, got.StartedAt = got.StartedAt, nil
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Advance = %+v, want %+v", got, tt.want)
			}
			if tt.want != nil && !tt.want.Cancelled {
				kept := next.StartedAt.UTC().Truncate(time.Microsecond)
				if tt.kept != nil {
					kept = *tt.kept
				}
				if started == nil || !started.Equal(kept) {
					t.Errorf("Advance's start %v, want the one the record keeps, %v", started, kept)
				}
			} else if started != nil {
				t.Errorf("Advance's start %v of an operation that did not begin", started)
			}
			if tt.unknown || (done == nil && next == nil) {
				return
			}
			d := f.get(id)
			if d.CurrentStep != tt.current {
				t.Errorf("current step %q, want %q", d.CurrentStep, tt.current)
			}
			if got := f.records(id); !slices.Equal(got, tt.records) {
				t.Errorf("records %q, want %q", got, tt.records)
			}
		})
	}
}

var nonAlnum = func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') }

// slug turns a case name into a deploy ID and environment.
func slug(name string) string {
	var b []rune
	dash := false
	for _, r := range name {
		if nonAlnum(r) {
			dash = len(b) > 0
			continue
		}
		if dash {
			b = append(b, '-')
			dash = false
		}
		b = append(b, r)
	}
	return string(b)
}

// A cancel that lands after the check writes nothing of the next operation:
// the deploy's record is as it was, but for the end of the one before.
func TestAdvanceAfterCancelWritesNothingOfTheNext(t *testing.T) {
	f := newFixture(t)
	f.pending("p", "staging")
	f.begin(*op("p", "config", ""))
	f.cancel("p")
	before := f.get("p")
	b, err := f.advance(nil, deploy.StepEffects{}, op("p", "artifacts", deploy.StepRunning), deploy.BeginOptions{HonourCancel: true})
	if err != nil || b == nil || !b.Cancelled {
		t.Fatalf("Advance after cancel = %+v, %v; want cancelled", b, err)
	}
	after := f.get("p")
	after.UpdatedAt = before.UpdatedAt
	if !reflect.DeepEqual(before, after) {
		t.Errorf("Advance wrote after a cancel:\nbefore %+v\nafter  %+v", before, after)
	}
}

// The full record of operations: a start keeps its time through restarts
// and counts a run once,
// an end keeps the start's time and the highest attempt count, and
// SkipSteps leaves the records that ended alone.
func TestOperationRecords(t *testing.T) {
	f := newFixture(t)
	f.pending("s", "staging")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	step := func(name string, pos int, state deploy.StepState, at time.Time) *deploy.Step {
		s := &deploy.Step{DeploymentID: "s", Name: name, Position: pos, Type: deploy.StepTypeStandard, State: state}
		if state == deploy.StepRunning {
			s.StartedAt = &at
		} else {
			s.FinishedAt = &at
		}
		return s
	}
	advance := func(done, next *deploy.Step) {
		t.Helper()
		if _, err := f.advance(done, deploy.StepEffects{}, next, deploy.BeginOptions{HonourCancel: true}); err != nil {
			t.Fatal(err)
		}
	}
	advance(nil, step(deploy.StepConfig, 0, deploy.StepRunning, t0))
	config := step(deploy.StepConfig, 0, deploy.StepSuccess, t0.Add(time.Second))
	config.Attempts, config.Output = 1, map[string]string{"revision": "r1"}
	advance(config, step(deploy.StepArtifacts, 1, deploy.StepRunning, t0.Add(2*time.Second)))
	// The worker stopped before DBOS recorded the config step: the step
	// runs again and writes its end and the start of artifacts again,
	// which is no run of artifacts.
	advance(config, step(deploy.StepArtifacts, 1, deploy.StepRunning, t0.Add(3*time.Second)))
	if n := f.get("s").Steps[1].Runs; n != 1 {
		t.Errorf("artifacts has %d runs after its start was written again, want 1", n)
	}
	// The process that resumes artifacts counts its run.
	if n, err := f.store.CountRun(f.ctx, "s", deploy.StepKey{Step: deploy.StepArtifacts, Kind: deploy.KindRun}); err != nil || n != 2 {
		t.Errorf("CountRun = %d, %v; want 2", n, err)
	}
	failed := step(deploy.StepArtifacts, 1, deploy.StepError, t0.Add(4*time.Second))
	failed.Attempts, failed.Error = 2, "download failed"
	advance(failed, nil)
	err := f.inTx(func(q dbos.Querier) error {
		return f.rec.SkipSteps(f.ctx, q, "s", []deploy.Step{
			{DeploymentID: "s", Name: deploy.StepArtifacts, Position: 1, State: deploy.StepSkipped},
			{DeploymentID: "s", Name: deploy.StepDeploy, Position: 2, State: deploy.StepSkipped},
			{DeploymentID: "s", Name: deploy.StepActivation, Position: 3, Type: "http", State: deploy.StepSkipped},
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	d := f.get("s")
	if d.CurrentStep != "" {
		t.Errorf("current step %q after the last step ended", d.CurrentStep)
	}
	want := []deploy.Step{
		{DeploymentID: "s", Name: deploy.StepConfig, Kind: deploy.KindRun, Runs: 1, Position: 0, Type: "standard", State: deploy.StepSuccess, Attempts: 1,
			StartedAt: ptr(t0), FinishedAt: ptr(t0.Add(time.Second)), Output: map[string]string{"revision": "r1"}},
		{DeploymentID: "s", Name: deploy.StepArtifacts, Kind: deploy.KindRun, Runs: 2, Position: 1, Type: "standard", State: deploy.StepError, Attempts: 2,
			StartedAt: ptr(t0.Add(2 * time.Second)), FinishedAt: ptr(t0.Add(4 * time.Second)), Output: map[string]string{}, Error: "download failed"},
		{DeploymentID: "s", Name: deploy.StepDeploy, Kind: deploy.KindRun, Position: 2, Type: "standard", State: deploy.StepSkipped, Output: map[string]string{}},
		{DeploymentID: "s", Name: deploy.StepActivation, Kind: deploy.KindRun, Position: 3, Type: "http", State: deploy.StepSkipped, Output: map[string]string{}},
	}
	if !reflect.DeepEqual(d.Steps, want) {
		t.Errorf("steps\n got %+v\nwant %+v", d.Steps, want)
	}
}

// Every operation of a step has its own record: a checkpoint, the run and
// the compensation of one step, and each target of a batch, coexist.
func TestRecordsAreKeyedPerOperation(t *testing.T) {
	f := newFixture(t)
	f.pending("k", "staging")
	names := []string{"checkpoint:deploy", "deploy", "deploy@web-1", "rollback:deploy"}
	for _, name := range names {
		f.begin(*op("k", name, ""))
	}
	// A second run of the run alone.
	if _, err := f.store.CountRun(f.ctx, "k", deploy.StepKey{Step: "deploy", Kind: deploy.KindRun}); err != nil {
		t.Fatal(err)
	}
	pass := *op("k", "deploy@web-1", "")
	pass.Pass, pass.Batch = 1, 2
	f.begin(pass)
	want := []string{"checkpoint:deploy RUNNING 1", "deploy RUNNING 2", "deploy@web-1 RUNNING 1", "deploy[1/2]@web-1 RUNNING 1", "rollback:deploy RUNNING 1"}
	if got := f.records("k"); !slices.Equal(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
	// A checkpoint is listed before the run it precedes.
	steps := f.get("k").Steps
	if len(steps) == 0 || steps[0].Kind != deploy.KindCheckpoint {
		t.Errorf("first record %+v, want the checkpoint", steps)
	}
}

func TestSkipSteps(t *testing.T) {
	f := newFixture(t)
	f.pending("s", "staging")
	f.begin(*op("s", "config", ""))
	if _, err := f.advance(op("s", "config", deploy.StepSuccess), deploy.StepEffects{}, op("s", "artifacts", deploy.StepRunning), deploy.BeginOptions{}); err != nil {
		t.Fatal(err)
	}
	skip := func(id string, steps ...*deploy.Step) error {
		var list []deploy.Step
		for _, s := range steps {
			list = append(list, *s)
		}
		return f.inTx(func(q dbos.Querier) error { return f.rec.SkipSteps(f.ctx, q, id, list) })
	}
	tests := []struct {
		name    string
		id      string
		steps   []*deploy.Step
		code    deploy.Code
		records []string
	}{
		{"cancel after a cancel request", "s", []*deploy.Step{
			op("s", "config", deploy.StepCancelled), op("s", "artifacts", deploy.StepCancelled),
			op("s", "deploy", deploy.StepCancelled), op("s", "checkpoint:activation", deploy.StepCancelled),
		}, "", []string{"artifacts CANCELLED 1", "checkpoint:activation CANCELLED 0", "config SUCCESS 1", "deploy CANCELLED 0"}},
		{"what ended stays", "s", []*deploy.Step{op("s", "artifacts", deploy.StepSkipped), op("s", "deploy", deploy.StepSkipped)},
			"", []string{"artifacts CANCELLED 1", "checkpoint:activation CANCELLED 0", "config SUCCESS 1", "deploy CANCELLED 0"}},
		{"nothing to skip", "nope", nil, "", nil},
		{"unknown deploy", "nope", []*deploy.Step{op("nope", "config", deploy.StepSkipped)}, deploy.ENOTFOUND, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, skip(tt.id, tt.steps...), tt.code)
			if tt.id != "s" {
				return
			}
			if got := f.records("s"); !slices.Equal(got, tt.records) {
				t.Errorf("records %q, want %q", got, tt.records)
			}
		})
	}
}
