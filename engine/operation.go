package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/steps"
	"manent.dev/manent/internal/dberr"
)

// An operation is one thing a deploy does to its targets or for them: a
// step of the plan, the checkpoint before it, its compensation, cleanup, a
// change step. Its start is recorded (RUNNING, with the cancel flag read)
// either alone, in a DBOS transaction (RunAsTransaction on DBOS's pool), or
// with the end of the operation before it. Its work and its end are one
// DBOS step: the attempts (the only part whose failure counts against the
// step's retries), then one transaction of the read model with the end of
// the operation, its effects and the start of the next; DBOS records the
// step's result, which holds what that transaction decided, after it. Both
// writes are idempotent: a step run again after a crash writes them again,
// to the same effect. A fault of the database is never the step's: the
// transactions wait for it, and DBOS retries its own records.
type op struct {
	deployID string
	key      deploy.StepKey
	step     deploy.PlannedStep
	pos      int
	begin    deploy.BeginOptions
	// job is the deploy's, for the step events of the operations a user
	// sees in the status (nil: none is recorded).
	job *deploy.Job
	// do makes one attempt; attempt counts from 1 in this process.
	do func(ctx context.Context, attempt int) (steps.Result, error)
}

func (o op) record(state deploy.StepState) deploy.Step {
	typ := o.step.Type
	if typ == "" {
		typ = deploy.StepTypeStandard
	}
	return deploy.Step{DeploymentID: o.deployID, Name: o.key.Step, Pass: o.key.Pass, Batch: o.key.Batch,
		Target: o.key.Target, Kind: o.key.Kind, Position: o.pos, Type: typ, State: state}
}

// workResult is what DBOS records of an operation's work: its outcome
// after every attempt, so that a replay anywhere knows the message the
// attempts ended with.
type workResult struct {
	Result     steps.Result `json:"result"`
	Failed     bool         `json:"failed,omitempty"`
	Error      string       `json:"error,omitempty"`
	Attempts   int          `json:"attempts"`
	StartedAt  time.Time    `json:"started_at"`
	FinishedAt time.Time    `json:"finished_at"`
	// Runs is set when the work stopped because too many processes ran it
	// (MAX_RECOVERY_ATTEMPTS_EXCEEDED).
	Runs int `json:"runs,omitempty"`
	// Next is the start of the next operation, recorded with this one's
	// end; nil when none was (none follows, or the process is stopping).
	Next *deploy.Begun `json:"next,omitempty"`
	// live is true when this process ran the step (false when DBOS replayed
	// its record): then the next operation was begun here.
	live bool
	// nextHeld: the next operation's start was recorded by this process,
	// which holds a place in the gate for its work (see gate).
	nextHeld bool
}

// then decides, once an operation's work is done, what its record changes
// beside itself and which operation follows (nil for none). It must be a
// function of the work's result alone: a replay takes the decision from
// DBOS's record of the step, and decides the same.
type then func(w workResult) (deploy.StepEffects, *op)

// nothingAfter is the then of an operation nothing follows.
func nothingAfter(workResult) (deploy.StepEffects, *op) { return deploy.StepEffects{}, nil }

func (e *Engine) txOptions(name string) []dbos.StepOption {
	return []dbos.StepOption{dbos.WithStepName(name)}
}

// beginOp records the start of an operation on its own. live is false when
// DBOS replayed the start recorded by another execution.
//
// A start this process records holds a place in the gate for the
// operation's work (live true): the caller does not enter the gate again,
// and leaves it after the work. Once the gate is closed, no start is
// recorded: the transaction waits until DBOS stops it (it holds no lock).
func (e *Engine) beginOp(ctx dbos.Context, o op) (b deploy.Begun, live bool, err error) {
	held := false
	b, err = dbos.RunAsTransaction(ctx, e.ds, func(c context.Context, tx dbos.Tx) (deploy.Begun, error) {
		live = true
		if err := e.unfenced(c); err != nil {
			return deploy.Begun{}, err
		}
		if !held {
			if held = e.gate.enter(); !held {
				<-c.Done()
				return deploy.Begun{}, fmt.Errorf("stopping: %w", context.Cause(c))
			}
		}
		b, err := e.beginIn(c, tx, o)
		return b, restartable(err)
	}, e.txOptions(stepRecordPrefix+"begin:"+o.key.Name())...)
	if err != nil {
		if held {
			e.gate.leave()
		}
		return deploy.Begun{}, false, fmt.Errorf("record the start of %s: %w", o.key.Name(), err)
	}
	return b, live, nil
}

// beginIn writes the start of o in tx and logs it once written.
func (e *Engine) beginIn(ctx context.Context, tx dbos.Tx, o op) (deploy.Begun, error) {
	b, err := e.rec.Advance(ctx, tx, nil, deploy.StepEffects{}, o.start(), o.begin)
	if err != nil {
		return deploy.Begun{}, err
	}
	return *b, nil
}

// start is the record of o's start.
func (o op) start() *deploy.Step {
	s := o.record(deploy.StepRunning)
	now := time.Now().UTC()
	s.StartedAt, s.Runs = &now, 1
	return &s
}

// unfenced is called first in every transaction of a workflow: once this
// process knows another worker took over its deploys (the fence poll, the
// heartbeat), nothing more is written here, and nothing of it may be
// recorded (an error would be, as the step's outcome). The process stops
// (the server exits on Fenced); DBOS interrupts the transaction, which
// holds no lock yet. Until the poll sees the fence, DBOS itself refuses the
// records of a workflow another process took over.
func (e *Engine) unfenced(ctx context.Context) error {
	select {
	case <-e.fenced.ch:
	default:
		return nil
	}
	<-ctx.Done()
	return fmt.Errorf("fenced: %w", context.Cause(ctx))
}

// stepOp runs the work of o (attempts with an increasing interval until one
// succeeds, one fails permanently, or max_retries are spent), then records
// its end and the start of the operation after it, as one DBOS step. It
// never returns an error for a failure of the work (the result says it):
// an error means the process is stopping and nothing was recorded.
//
// counted is false when this process did not record the operation's start
// itself: it resumes an operation a stopped process began, and counts the
// run (a step that keeps stopping its worker ends the deploy).
func (e *Engine) stepOp(ctx dbos.Context, o op, counted bool, after then) (workResult, error) {
	live, nextHeld := false, false
	w, err := dbos.RunAsStep(ctx, func(c context.Context) (workResult, error) {
		live = true
		// The work goes on while a shutdown waits for it (Shutdown), and
		// stops only when the process gives up waiting.
		wctx, cancel := context.WithCancel(context.WithoutCancel(c))
		defer cancel()
		stop := context.AfterFunc(e.abortCtx, cancel)
		defer stop()
		if !counted {
			runs, err := e.countRun(wctx, o)
			if err != nil {
				return workResult{}, err
			}
			if limit := e.cfg.Engine.MaxRecoveryAttempts; limit > 0 && runs > limit+1 {
				now := time.Now().UTC()
				msg := fmt.Sprintf("the worker stopped %d times while this step ran (engine.max_recovery_attempts is %d): see the worker logs", runs-1, limit)
				e.logOp(o, "error", "%s", msg)
				w := workResult{Failed: true, Error: msg, Runs: runs, StartedAt: now, FinishedAt: now}
				return e.endOp(wctx, o, w, after, &nextHeld)
			}
			// Written at once, not batched: the process may stop again.
			e.logNow(wctx, o, "warn", "%s runs again: the process that ran it stopped (run %d)", o.key.Name(), runs)
		}
		return e.endOp(wctx, o, e.attempts(wctx, c, o), after, &nextHeld)
	}, dbos.WithStepName(o.key.Name()))
	if err != nil {
		if nextHeld {
			e.gate.leave()
		}
		return w, err
	}
	w.live, w.nextHeld = live, nextHeld
	return w, nil
}

// attempts runs the attempts of o's work.
func (e *Engine) attempts(ctx, dbosCtx context.Context, o op) workResult {
	w := workResult{StartedAt: time.Now().UTC()}
	interval := e.cfg.Pipeline.RetryInterval
	if interval <= 0 {
		interval = time.Second
	}
	maxInterval := max(e.cfg.Pipeline.RetryMaxInterval, interval)
	for attempt := 1; ; attempt++ {
		w.Attempts = attempt
		if attempt == 1 {
			e.logOp(o, "info", "%s started", o.key.Name())
		} else {
			e.recordAttempt(ctx, o, attempt)
		}
		start := time.Now()
		res, err := e.attempt(ctx, o, attempt)
		if err == nil {
			w.Result, w.FinishedAt = res, time.Now().UTC()
			if res.Note != "" {
				e.logOp(o, "warn", "%s", res.Note)
			}
			e.logOp(o, "info", "%s succeeded in %s", o.key.Name(), time.Since(start).Round(time.Millisecond))
			return w
		}
		kind := "temporary"
		if deploy.IsPermanent(err) {
			kind = "permanent"
		}
		msg := e.publicError(o, err)
		e.logOp(o, "error", "%s attempt %d failed (%s error): %s", o.key.Name(), attempt, kind, msg)
		if deploy.IsPermanent(err) || attempt > o.step.MaxRetries || ctx.Err() != nil {
			w.Failed, w.Error, w.FinishedAt = true, msg, time.Now().UTC()
			// What the last attempt said of its targets stays with the
			// error; nothing else of a failed attempt is kept.
			w.Result = steps.Result{Output: res.Output}
			return w
		}
		select {
		case <-time.After(interval):
		case <-ctx.Done():
		}
		interval = min(2*interval, maxInterval)
	}
}

// recordAttempt shows a retry in the operation's record while it runs: one
// write per retry, none on the first attempt. It is only what readers see
// meanwhile (the end records the count anyway), so a database that is away
// delays nothing: the write is given up.
func (e *Engine) recordAttempt(ctx context.Context, o op, n int) {
	if err := e.store.RecordAttempt(ctx, o.deployID, o.key, n); err != nil {
		e.log.Warn("record the attempt of a step", "deployment", o.deployID, "step", o.key.Name(), "attempt", n, "error", err)
	}
}

// attempt makes one attempt within the step's timeout. An error of manent's
// own database (the config step reads it) is not the step's: the attempt
// waits for the database and is made again, without counting.
func (e *Engine) attempt(ctx context.Context, o op, n int) (steps.Result, error) {
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 10*time.Second) {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if o.step.Timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, o.step.Timeout)
		}
		res, err := o.do(actx, n)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
		cancel()
		switch {
		case err == nil:
			return res, nil
		case deploy.Unavailable(err) && ctx.Err() == nil:
			e.log.Warn("the database is unavailable: the step waits for it", "deployment", o.deployID, "step", o.key.Name(), "error", err)
			select {
			case <-time.After(wait):
				continue
			case <-ctx.Done():
				return steps.Result{}, ctx.Err()
			}
		case timedOut:
			return res, fmt.Errorf("timed out after %s", o.step.Timeout)
		}
		return res, err
	}
}

// countRun counts a run of o by one more process, waiting for the database.
func (e *Engine) countRun(ctx context.Context, o op) (int, error) {
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 10*time.Second) {
		n, err := e.store.CountRun(ctx, o.deployID, o.key)
		if err == nil || !deploy.Unavailable(err) {
			return n, err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// endOp records the end of o with its effects and, when the process is not
// stopping, the start of the operation after it, in one transaction that
// waits for the database. A start it records holds a place in the gate
// for that operation's work (*held).
func (e *Engine) endOp(ctx context.Context, o op, w workResult, after then, held *bool) (workResult, error) {
	fx, next := after(w)
	s := o.record(deploy.StepSuccess)
	if w.Failed {
		s.State = deploy.StepError
	}
	s.Attempts, s.Output, s.Error = w.Attempts, w.Result.Output, w.Error
	if !w.StartedAt.IsZero() {
		s.StartedAt = &w.StartedAt
	}
	finished := w.FinishedAt
	if finished.IsZero() {
		finished = time.Now().UTC()
	}
	s.FinishedAt = &finished
	var notice *noticeInput
	if o.job != nil && o.key.Kind != deploy.KindCheckpoint {
		n := newNotice(o.deployID, deploy.NoticeStep, o.key.Name(), string(s.State))
		if in, ok := e.wanted(n, &o.job.Descriptor, jobDeployment(o.job)); ok {
			notice = &in
		}
	}
	// alone: the end is one statement on the pool, committed when it
	// returns, whose notifications go with the log writer's next batch.
	alone := false
	write := func(q dbos.Querier) error {
		if err := e.unfenced(ctx); err != nil {
			return err
		}
		var start *deploy.Step
		var opts deploy.BeginOptions
		if next != nil && !*held {
			*held = e.gate.enter()
		}
		if next != nil && *held {
			start, opts = next.start(), next.begin
		}
		opts.NotifyLater = alone
		b, err := e.rec.Advance(ctx, q, &s, fx, start, opts)
		if err != nil {
			return err
		}
		if notice != nil {
			if err := e.enqueueNotice(txOf(q), *notice); err != nil {
				return err
			}
		}
		w.Next = b
		return nil
	}
	var start *deploy.Step
	var opts deploy.BeginOptions
	if next != nil {
		start, opts = next.start(), next.begin
	}
	var err error
	if notice == nil && e.rec.AdvancesAtOnce(&s, fx, start, opts) {
		// One statement is a transaction of its own: no BEGIN and COMMIT
		// around it, two round trips fewer on every operation.
		alone = true
		if err = e.onPool(ctx, write); err == nil {
			e.logs.Notify(o.deployID, deploy.EventStep, deploy.EventDeployment)
		}
	} else {
		err = e.inTx(ctx, write)
	}
	if err != nil {
		if *held {
			e.gate.leave()
			*held = false
		}
		return workResult{}, fmt.Errorf("record the end of %s: %w", o.key.Name(), err)
	}
	if w.Next != nil && w.Next.Cancelled && *held {
		// A cancel came first: the next operation will not run.
		e.gate.leave()
		*held = false
	}
	return w, nil
}

// logNow writes a line of o's log at once, after the lines queued before it.
func (e *Engine) logNow(ctx context.Context, o op, level, format string, args ...any) {
	e.logOp(o, level, format, args...)
	flush, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := e.logs.flush(flush); err != nil {
		e.log.Warn("deploy log line not stored yet", "deployment", o.deployID, "error", err)
	}
}

// shown is a message of a deploy (a log line, a step's error) as its
// readers see it: on one line, every control character escaped (a name
// from an archive cannot drive their terminal), and the paths of the
// server's directories relative to them.
func (e *Engine) shown(msg string) string {
	return deploy.EscapeText(e.cfg.ShowPaths(msg))
}

func (e *Engine) logOp(o op, level, format string, args ...any) {
	e.logs.Write(deploy.LogLine{DeploymentID: o.deployID, Time: time.Now().UTC(), Step: o.key.Name(), Level: level,
		Message: fmt.Sprintf(format, args...)})
}

func (e *Engine) logLine(id, step, level, format string, args ...any) {
	e.logs.Write(deploy.LogLine{DeploymentID: id, Time: time.Now().UTC(), Step: step, Level: level,
		Message: fmt.Sprintf(format, args...)})
}

// publicError is the message of a step's error that its readers see: an
// error of manent's own database (never a failure of the step's work, but
// a bug or a refused write) is logged in full and shown as a reference.
func (e *Engine) publicError(o op, err error) string {
	if !dberr.Internal(err) && !deploy.Unavailable(err) {
		return e.shown(err.Error())
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	ref := hex.EncodeToString(b[:])
	e.log.Error("internal error in a step", "deployment", o.deployID, "step", o.key.Name(), "ref", ref, "error", err)
	return "internal error (reference " + ref + " in the worker log)"
}
