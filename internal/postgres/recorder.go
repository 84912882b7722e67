package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// Recorder writes the record of a deploy's run inside the transactions in
// which DBOS records the workflow's steps (the engine's Recorder port): the
// read model changes in the transaction of the step it describes. Its SQL
// is pgx's ($n), run on the transaction DBOS hands the step.
type Recorder struct {
	// stepByStep makes every Advance take the general path, for the tests
	// that hold the one-statement path to it.
	stepByStep bool
}

// NewRecorder returns the Recorder of the manent schema.
func NewRecorder() *Recorder { return &Recorder{} }

// notifyIn queues the notifications of the kinds of change of a deploy, in
// one statement: PostgreSQL sends them when the transaction commits.
func notifyIn(ctx context.Context, q dbos.Querier, id string, kinds ...deploy.EventKind) error {
	payloads, err := eventPayloads(id, kinds...)
	if err != nil {
		return err
	}
	if _, err := q.Exec(ctx, "SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p", Channel, payloads); err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	return nil
}

// eventPayloads are the notifications of the kinds of change to the deploy
// id, for a statement's pg_notify over unnest.
func eventPayloads(id string, kinds ...deploy.EventKind) ([]string, error) {
	payloads := make([]string, len(kinds))
	for i, k := range kinds {
		p, err := eventPayload(id, k)
		if err != nil {
			return nil, err
		}
		payloads[i] = p
	}
	return payloads, nil
}

// eventPayload is the notification of a change of kind to the deploy id.
func eventPayload(id string, kind deploy.EventKind) (string, error) {
	b, err := json.Marshal(deploy.Event{Kind: kind, DeploymentID: id})
	if err != nil {
		return "", fmt.Errorf("encode event: %w", err)
	}
	return string(b), nil
}

// updateNotifying runs update, an UPDATE of the deploy id whose RETURNING
// gives a row per row it changed, and queues the notification of kind
// for each, in the same statement: the change and its notification are
// one round trip, and a deploy left as it was notifies nothing. update's
// parameters are args ($1, $2, ...); it answers how many rows changed.
func updateNotifying(ctx context.Context, q dbos.Querier, kind deploy.EventKind, id, update string, args ...any) (int, error) {
	payload, err := eventPayload(id, kind)
	if err != nil {
		return 0, err
	}
	n := len(args)
	// pg_notify is volatile: the count reads every row of u, so each one
	// notifies (a CTE that is not referenced would never run).
	var changed int
	err = q.QueryRow(ctx, fmt.Sprintf(`WITH u AS (%s)
		SELECT count(*) FROM (SELECT pg_notify($%d, $%d) FROM u) AS n`, update, n+1, n+2),
		append(args, Channel, payload)...).Scan(&changed)
	return changed, err
}

// AdvancesAtOnce implements the engine's Recorder: an operation's end, the
// next one's start and the deploy put in service are one statement, every
// operation of a deploy pays for it. The general path takes an undo of the
// inventory (a rollback's, rare), an end and a start of the same record
// (one statement cannot write a row twice), and a start that reads what is
// in service (once a deploy): one statement reads every table but the rows
// it locks as of its start, before it waited for the deploy's lock (the
// log writer, a cancel), so it could miss a release put in service
// meanwhile, which the general path's read, a statement after the lock,
// sees.
func (r *Recorder) AdvancesAtOnce(done *deploy.Step, fx deploy.StepEffects, next *deploy.Step, o deploy.BeginOptions) bool {
	if r.stepByStep || (done == nil && next == nil) || fx.Restore != nil || o.ReadInService {
		return false
	}
	return done == nil || next == nil || next.Key() != done.Key()
}

// SetRollback implements the engine's Recorder.
func (r *Recorder) SetRollback(ctx context.Context, q dbos.Querier, id, state string) error {
	n, err := updateNotifying(ctx, q, deploy.EventDeployment, id,
		"UPDATE manent.deployments SET rollback = $2, updated_at = now() WHERE id = $1 RETURNING 1", id, state)
	if err != nil {
		return wrap("record rollback", err)
	}
	if n == 0 {
		return notFound(id)
	}
	return nil
}

// AppendLog implements the engine's Recorder: lines of one deploy, in the
// transaction of its outcome, so that the log is complete when the state
// is final. Numbered as Store.AppendLog numbers them, in one statement:
// the numbers are reserved on the deploy's row of manent.log_sequences
// (locked until the commit, so no other writer takes them; the deploy's
// own row is only share-locked, against its removal), the lines take them
// in their order, and the log event is queued; a deploy that is gone gets
// none of them, and no error: its lines went with it.
func (r *Recorder) AppendLog(ctx context.Context, q dbos.Querier, id string, lines []deploy.LogLine) error {
	if len(lines) == 0 {
		return nil
	}
	n := len(lines)
	times, steps, levels, messages := make([]time.Time, n), make([]string, n), make([]string, n), make([]string, n)
	for i, l := range lines {
		if l.Time.IsZero() {
			l.Time = time.Now().UTC()
		}
		row := toLogRow(l, 0)
		times[i], steps[i], levels[i], messages[i] = row.Time, row.Step, row.Level, row.Message
	}
	payload, err := eventPayload(id, deploy.EventLog)
	if err != nil {
		return fmt.Errorf("append log: %w", err)
	}
	var notified int
	err = q.QueryRow(ctx, `WITH live AS MATERIALIZED (
			SELECT 1 FROM manent.deployments WHERE id = $1::text FOR KEY SHARE
		), seq AS (
			INSERT INTO manent.log_sequences AS s (deployment_id, seq) SELECT $1::text, $2::bigint FROM live
			ON CONFLICT (deployment_id) DO UPDATE SET seq = s.seq + EXCLUDED.seq
			RETURNING s.seq - $2::bigint AS base
		), ins AS (
			INSERT INTO manent.deployment_logs (deployment_id, seq, time, step, level, message)
			SELECT $1::text, seq.base + l.k, l.time, l.step, l.level, l.message
			FROM seq, unnest($3::timestamptz[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS l(time, step, level, message, k)
		)
		SELECT count(*) FROM (SELECT pg_notify($7, $8) FROM seq) AS n`,
		id, int64(n), times, steps, levels, messages, Channel, payload).Scan(&notified)
	return wrap("append log", err)
}

// StartRun implements the engine's Recorder: ENQUEUED → PENDING. PENDING
// answers true too: a run resumed on another process did start.
func (r *Recorder) StartRun(ctx context.Context, q dbos.Querier, id string, at time.Time, notifyLater bool) (bool, error) {
	const start = `UPDATE manent.deployments SET state = $2, started_at = COALESCE(started_at, $3), updated_at = now()
		WHERE id = $1 AND state = ANY($4) RETURNING 1`
	args := []any{id, string(deploy.StatePending), micro(at), guard(deploy.StatePending)}
	var n int
	var err error
	if notifyLater {
		err = q.QueryRow(ctx, `WITH u AS (`+start+`) SELECT count(*) FROM u`, args...).Scan(&n)
	} else {
		n, err = updateNotifying(ctx, q, deploy.EventDeployment, id, start, args...)
	}
	if err != nil {
		return false, wrap("start deployment", err)
	}
	if n > 0 {
		return true, nil
	}
	var state string
	if err := q.QueryRow(ctx, "SELECT state FROM manent.deployments WHERE id = $1", id).Scan(&state); errors.Is(err, dbos.ErrNoRows) {
		return false, notFound(id)
	} else if err != nil {
		return false, wrap("start deployment", err)
	}
	return false, nil
}

// Advance implements the engine's Recorder: the end of one operation and
// the start of the next in as few statements as it takes, since every
// operation of a deploy pays for them. The deploy's row is locked (SELECT
// ... FOR NO KEY UPDATE: the log's writers, which take FOR KEY SHARE, are
// not held up) while the cancel flag is read, so a cancel lands either
// before the next operation begins (it does not) or after it (the deploy
// stops at the one after), never in between.
func (r *Recorder) Advance(ctx context.Context, q dbos.Querier, done *deploy.Step, fx deploy.StepEffects, next *deploy.Step, o deploy.BeginOptions) (*deploy.Begun, error) {
	if r.AdvancesAtOnce(done, fx, next, o) {
		return advanceAtOnce(ctx, q, done, fx, next, o)
	}
	id := ""
	switch {
	case done != nil:
		id = done.DeploymentID
		if _, err := putStep(ctx, q, *done); err != nil {
			return nil, err
		}
	case next != nil:
		id = next.DeploymentID
	default:
		return nil, nil
	}
	var effective *string
	if fx.Effective != nil {
		b, err := json.Marshal(fx.Effective)
		if err != nil {
			return nil, fmt.Errorf("record step: %w", err)
		}
		e := string(b)
		effective = &e
	}
	doneName, nextName := "", ""
	if done != nil {
		doneName = done.Key().Name()
	}
	if next != nil {
		nextName = next.Key().Name()
	}
	var stop stopRequest
	var row inventorySource
	err := q.QueryRow(ctx, `WITH before AS (SELECT `+stopColumns+` FROM manent.deployments WHERE id = $1 FOR NO KEY UPDATE)
		UPDATE manent.deployments AS d SET
			current_step = CASE
				WHEN $3 <> '' AND NOT (before.stop AND $7) THEN $3
				WHEN d.current_step = $2 THEN '' ELSE d.current_step END,
			effective = COALESCE($4::jsonb, d.effective),
			sha256 = CASE WHEN $5 = '' THEN d.sha256 ELSE $5 END,
			rollback = CASE WHEN $6 = '' THEN d.rollback ELSE $6 END,
			updated_at = now()
		FROM before WHERE d.id = $1
		RETURNING `+stopReturning+`, d.`+strings.ReplaceAll(inventorySourceColumns, ", ", ", d."),
		id, doneName, nextName, effective, fx.SHA256, fx.Rollback, o.HonourCancel).
		Scan(append(stop.dest(), row.dest()...)...)
	if errors.Is(err, dbos.ErrNoRows) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, wrap("record step", err)
	}
	if fx.InService && !row.dryRun {
		if err := putInService(ctx, q, row, time.Now().UTC()); err != nil {
			return nil, err
		}
	}
	if fx.Restore != nil && !row.dryRun {
		if err := restoreInService(ctx, q, row, *fx.Restore); err != nil {
			return nil, err
		}
	}
	var begun *deploy.Begun
	if next != nil {
		begun = &deploy.Begun{}
		switch {
		case stop.stop && o.HonourCancel:
			*begun = stop.begun()
		default:
			if o.ReadInService {
				err := q.QueryRow(ctx, `SELECT deployment_id FROM manent.inventory WHERE tenant = $1 AND application = $2 AND environment = $3`,
					row.tenant, row.application, row.environment).Scan(&begun.InService)
				if err != nil && !errors.Is(err, dbos.ErrNoRows) {
					return nil, wrap("record step", err)
				}
			}
			s := *next
			s.State, s.Runs, s.Attempts = deploy.StepRunning, 1, 1
			if begun.StartedAt, err = putStep(ctx, q, s); err != nil {
				return nil, err
			}
		}
	}
	return begun, wrap("record step", notifyIn(ctx, q, id, deploy.EventStep, deploy.EventDeployment))
}

// stepColumns are the columns of a step record, in the order putStep and
// advanceAtOnce give them.
const stepColumns = "deployment_id, name, pass, batch, target, kind, position, type, state, attempts, runs, started_at, finished_at, output, error"

// ofDeploy makes a step's insert write nothing for a deploy that is gone
// (retention, or never was): the steps have no foreign key, so the writers
// look for the deploy themselves and answer not found. The lock is the
// key's: it waits for a removal of the deploy in progress, then finds no
// row, so no step outlives its deploy.
const ofDeploy = `WHERE EXISTS (SELECT 1 FROM manent.deployments WHERE id = $1 FOR KEY SHARE)`

// stepUpsert is what a record written again keeps: a start (RUNNING) of an
// operation not running counts a run; a start written again (the end
// before it recorded again after a crash) does not: a process that resumes
// the operation counts its run itself (CountRun). An end keeps the start's
// time and the highest attempt count.
const stepUpsert = `ON CONFLICT (deployment_id, name, pass, batch, target, kind) DO UPDATE SET
			state = EXCLUDED.state, position = EXCLUDED.position, type = EXCLUDED.type,
			attempts = GREATEST(s.attempts, EXCLUDED.attempts),
			runs = CASE WHEN EXCLUDED.state = 'RUNNING' AND s.state <> 'RUNNING' THEN s.runs + 1 ELSE s.runs END,
			started_at = COALESCE(s.started_at, EXCLUDED.started_at),
			finished_at = EXCLUDED.finished_at, output = EXCLUDED.output, error = EXCLUDED.error`

// advanceAtOnce is Advance in one statement (AdvancesAtOnce): the round
// trips of the general path, one per record, are what an operation would
// pay for every write.
func advanceAtOnce(ctx context.Context, q dbos.Querier, done *deploy.Step, fx deploy.StepEffects, next *deploy.Step, o deploy.BeginOptions) (*deploy.Begun, error) {
	id := nextDeployID(done, next)
	d, err := stepArgsOf(done)
	if err != nil {
		return nil, err
	}
	n, err := stepArgsOf(next)
	if err != nil {
		return nil, err
	}
	var effective *string
	if fx.Effective != nil {
		b, err := json.Marshal(fx.Effective)
		if err != nil {
			return nil, fmt.Errorf("record step: %w", err)
		}
		e := string(b)
		effective = &e
	}
	payloads := []string{}
	if !o.NotifyLater {
		if payloads, err = eventPayloads(id, deploy.EventStep, deploy.EventDeployment); err != nil {
			return nil, err
		}
	}
	var stop stopRequest
	var notified int
	var started *time.Time
	// The end is written FROM before, the deploy's row locked: nothing for
	// a deploy that is gone, or that a concurrent removal takes (the lock
	// waits for it, then finds no row). The inventory takes the deploy's
	// row as updated (its sha256 may be this end's), as putInService does:
	// its upsert locks and reads the latest inventory row, whatever the
	// statement's snapshot.
	err = q.QueryRow(ctx, `WITH before AS (
			SELECT `+stopColumns+` FROM manent.deployments WHERE id = $1 FOR NO KEY UPDATE
		), done AS (
			INSERT INTO manent.deployment_steps AS s (`+stepColumns+`)
			SELECT $1::text, $2::text, $3::int, $4::int, $5::text, $6::text, $7::int, $8::text, $9::text, $10::int, $11::int,
				$12::timestamptz, $13::timestamptz, $14::jsonb, $15::text
			FROM before WHERE $32::bool
			`+stepUpsert+`
			RETURNING 1
		), upd AS (
			UPDATE manent.deployments AS d SET
				current_step = CASE
					WHEN $16::text <> '' AND NOT (before.stop AND $20::bool) THEN $16::text
					WHEN d.current_step = $21::text THEN '' ELSE d.current_step END,
				effective = COALESCE($17::jsonb, d.effective),
				sha256 = CASE WHEN $18::text = '' THEN d.sha256 ELSE $18::text END,
				rollback = CASE WHEN $19::text = '' THEN d.rollback ELSE $19::text END,
				updated_at = now()
			FROM before WHERE d.id = $1
			RETURNING `+stopReturning+`, d.tenant, d.application, d.environment, d.requester, d.sha256, d.artifact, d.dry_run
		), placed AS (
			INSERT INTO manent.inventory AS i (tenant, application, environment, deployment_id, artifact, sha256, deployed_at, deployed_by)
			SELECT upd.tenant, upd.application, upd.environment, $1, upd.artifact, upd.sha256, $33::timestamptz, upd.requester
			FROM upd WHERE $34::bool AND NOT upd.dry_run
			`+inServiceUpsert+`
			RETURNING tenant, application, environment, deployment_id, deployed_at
		), placed_history AS (
			INSERT INTO manent.inventory_history (deployment_id, tenant, application, environment, deployed_at)
			SELECT deployment_id, tenant, application, environment, deployed_at FROM placed
			ON CONFLICT (deployment_id) DO NOTHING
			RETURNING 1
		), nxt AS (
			INSERT INTO manent.deployment_steps AS s (`+stepColumns+`)
			SELECT $1, $22::text, $23::int, $24::int, $25::text, $26::text, $27::int, $28::text, 'RUNNING', 1, 1,
				$29::timestamptz, $35::timestamptz, $36::jsonb, $37::text
			FROM upd WHERE $22::text <> '' AND NOT (upd.stop AND $20::bool)
			`+stepUpsert+`
			RETURNING s.started_at
		), n AS (
			SELECT pg_notify($30, p) FROM unnest($31::text[]) AS p
		)
		SELECT upd.cancel_requested, upd.cancelled_by, upd.stop, upd.rollout_request_by, upd.rollout_request_reason,
			(SELECT count(*) FROM n) + (SELECT count(*) FROM nxt) + (SELECT count(*) FROM done) +
				(SELECT count(*) FROM placed_history),
			(SELECT started_at FROM nxt)
		FROM upd`,
		id, d.key.Step, d.key.Pass, d.key.Batch, d.key.Target, string(d.key.Kind), d.position, d.typ,
		d.state, d.attempts, d.runs, d.started, d.finished, d.output, d.err,
		n.name, effective, fx.SHA256, fx.Rollback, o.HonourCancel, d.name,
		n.key.Step, n.key.Pass, n.key.Batch, n.key.Target, string(n.key.Kind), n.position, n.typ, n.started,
		Channel, payloads, done != nil, micro(time.Now().UTC()), fx.InService,
		n.finished, n.output, n.err).
		Scan(append(stop.dest(), &notified, &started)...)
	switch {
	case errors.Is(err, dbos.ErrNoRows):
		return nil, notFound(id)
	case err != nil:
		return nil, wrap("record step", err)
	case next == nil:
		return nil, nil
	}
	if stop.stop && o.HonourCancel {
		b := stop.begun()
		return &b, nil
	}
	return &deploy.Begun{StartedAt: utcPtr(started)}, nil
}

// stepArgs are a step record's columns as the statements write them; for
// no step, zero values and an empty output.
type stepArgs struct {
	key                      deploy.StepKey
	name, typ, state, output string
	err                      string
	position, attempts, runs int
	started, finished        *time.Time
}

func stepArgsOf(s *deploy.Step) (stepArgs, error) {
	if s == nil {
		return stepArgs{output: "{}"}, nil
	}
	out, err := json.Marshal(textMap(s.Output))
	if err != nil {
		return stepArgs{}, fmt.Errorf("record step: %w", err)
	}
	return stepArgs{key: s.Key(), name: s.Key().Name(), typ: stepType(s.Type), state: string(s.State), output: string(out),
		err: line(s.Error), position: s.Position, attempts: s.Attempts, runs: max(s.Runs, 1),
		started: microPtr(s.StartedAt), finished: microPtr(s.FinishedAt)}, nil
}

// nextDeployID is the deploy of an Advance: done's, or next's when there is
// no end to record.
func nextDeployID(done, next *deploy.Step) string {
	if done != nil {
		return done.DeploymentID
	}
	return next.DeploymentID
}

// An operation that honours cancels does not begin when a cancel, or an
// abort of the rollout, was asked: stopColumns read both under the row
// lock, stopReturning hands them on.
const (
	stopColumns = `cancel_requested, cancelled_by, cancel_requested OR rollout_request = 'abort' AS stop,
		rollout_request_by, rollout_request_reason`
	stopReturning = `before.cancel_requested, before.cancelled_by, before.stop, before.rollout_request_by,
		before.rollout_request_reason`
)

// stopRequest is what stopColumns read.
type stopRequest struct {
	cancelled   bool
	cancelledBy string
	stop        bool
	by, reason  string
}

func (s *stopRequest) dest() []any {
	return []any{&s.cancelled, &s.cancelledBy, &s.stop, &s.by, &s.reason}
}

// begun is the start of an operation that a cancel (which comes first) or
// an abort stopped.
func (s stopRequest) begun() deploy.Begun {
	if s.cancelled {
		return deploy.Begun{Cancelled: true, CancelledBy: s.cancelledBy}
	}
	return deploy.Begun{Aborted: true, AbortedBy: s.by, AbortReason: s.reason}
}

// putStep writes the record s, as stepUpsert says, and returns the start it
// keeps.
func putStep(ctx context.Context, q dbos.Querier, s deploy.Step) (*time.Time, error) {
	a, err := stepArgsOf(&s)
	if err != nil {
		return nil, err
	}
	var started *time.Time
	err = q.QueryRow(ctx, `INSERT INTO manent.deployment_steps AS s (`+stepColumns+`)
		SELECT $1::text, $2::text, $3::int, $4::int, $5::text, $6::text, $7::int, $8::text, $9::text, $10::int, $11::int,
				$12::timestamptz, $13::timestamptz, $14::jsonb, $15::text
		`+ofDeploy+`
		`+stepUpsert+` RETURNING s.started_at`,
		s.DeploymentID, a.key.Step, a.key.Pass, a.key.Batch, a.key.Target, string(a.key.Kind), a.position, a.typ,
		a.state, a.attempts, a.runs, a.started, a.finished, a.output, a.err).
		Scan(&started)
	if errors.Is(err, dbos.ErrNoRows) {
		return nil, notFound(s.DeploymentID)
	}
	if err != nil {
		return nil, wrap("record step", err)
	}
	return utcPtr(started), nil
}

// SkipSteps implements the engine's Recorder: records that ended keep
// their state.
func (r *Recorder) SkipSteps(ctx context.Context, q dbos.Querier, id string, steps []deploy.Step) error {
	if len(steps) == 0 {
		return nil
	}
	payload, err := eventPayload(id, deploy.EventStep)
	if err != nil {
		return fmt.Errorf("skip steps: %w", err)
	}
	// Locked as ofDeploy locks, until the end of the transaction the skips
	// are written in (the finish's). The notification goes with the lock,
	// a round trip less: PostgreSQL sends it at the commit, after the
	// skips, and not at all if one of them fails.
	var exists int
	if err := q.QueryRow(ctx, `WITH d AS (SELECT 1 FROM manent.deployments WHERE id = $1 FOR KEY SHARE)
		SELECT count(*) FROM (SELECT pg_notify($2, $3) FROM d) AS n`, id, Channel, payload).Scan(&exists); err != nil {
		return wrap("skip steps", err)
	}
	if exists == 0 {
		return notFound(id)
	}
	for _, s := range steps {
		key := s.Key()
		_, err := q.Exec(ctx, `INSERT INTO manent.deployment_steps AS s
				(deployment_id, name, pass, batch, target, kind, position, type, state)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			ON CONFLICT (deployment_id, name, pass, batch, target, kind) DO UPDATE SET state = EXCLUDED.state
			WHERE s.state IN ($10, $11)`,
			id, key.Step, key.Pass, key.Batch, key.Target, string(key.Kind), s.Position, stepType(s.Type), string(s.State),
			string(deploy.StepPending), string(deploy.StepRunning))
		if err != nil {
			return wrap("skip steps", err)
		}
	}
	return nil
}

// FinishRun implements the engine's Recorder: the outcome, the inventory,
// the last failure of the environment and the deployment.finish audit
// entry. A deploy already final is left as it is.
func (r *Recorder) FinishRun(ctx context.Context, q dbos.Querier, o deploy.Outcome) (deploy.Finished, error) {
	if !o.State.Terminal() {
		return deploy.Finished{}, fmt.Errorf("finish deployment %s: %s is not a final state", o.ID, o.State)
	}
	o.Error, o.FailedStep = line(o.Error), text(o.FailedStep)
	var exports *string
	if o.State == deploy.StateSuccess && len(o.Exports) > 0 {
		clean := make([]deploy.Export, len(o.Exports))
		for i, x := range o.Exports {
			x.Value = text(x.Value)
			clean[i] = x
		}
		b, err := json.Marshal(clean)
		if err != nil {
			return deploy.Finished{}, fmt.Errorf("encode exports: %w", err)
		}
		e := string(b)
		exports = &e
	}
	finishedAt := time.Now().UTC()
	if !o.FinishedAt.IsZero() {
		finishedAt = o.FinishedAt
	}
	var row inventorySource
	var release *string
	err := q.QueryRow(ctx, `UPDATE manent.deployments SET state = $2, error = $3,
			sha256 = CASE WHEN $4 = '' THEN sha256 ELSE $4 END,
			rollback = CASE WHEN $5 = '' THEN rollback ELSE $5 END,
			exports = COALESCE($6::jsonb, exports),
			finished_at = $7, current_step = '', updated_at = now()
		WHERE id = $1 AND state = ANY($8)
		RETURNING release, `+inventorySourceColumns,
		o.ID, string(o.State), o.Error, o.SHA256, o.Rollback, exports, micro(finishedAt), guard(o.State)).
		Scan(append([]any{&release}, row.dest()...)...)
	switch {
	case errors.Is(err, dbos.ErrNoRows):
		var state string
		if err := q.QueryRow(ctx, "SELECT state FROM manent.deployments WHERE id = $1", o.ID).Scan(&state); errors.Is(err, dbos.ErrNoRows) {
			return deploy.Finished{}, notFound(o.ID)
		} else if err != nil {
			return deploy.Finished{}, wrap("finish deployment", err)
		}
		return deploy.Finished{}, nil
	case err != nil:
		return deploy.Finished{}, wrap("finish deployment", err)
	}
	if !row.dryRun {
		switch {
		case o.State == deploy.StateSuccess && o.InService:
			if err := putInService(ctx, q, row, finishedAt); err != nil {
				return deploy.Finished{}, err
			}
		case o.State == deploy.StateError || o.State == deploy.StateMaxRecoveryAttemptsExceeded:
			if err := recordFailure(ctx, q, row, o, finishedAt); err != nil {
				return deploy.Finished{}, err
			}
		}
	}
	details := map[string]any{"state": string(o.State), "tenant": row.tenant, "application": row.application,
		"environment": row.environment, "version": row.artifact.Version, "dry_run": row.dryRun}
	if row.sha256 != "" {
		details["sha256"] = row.sha256
	}
	if o.Error != "" {
		details["error"] = o.Error
	}
	if o.Rollback != "" {
		details["rollback"] = o.Rollback
	}
	actor := o.Actor
	if actor == "" {
		actor = row.requester
	}
	dependents, err := finishAudited(ctx, q, o.ID, actor, details)
	if err != nil {
		return deploy.Finished{}, err
	}
	fin := deploy.Finished{Dependents: dependents}
	if release != nil {
		fin.Release = *release
	}
	return fin, nil
}

// finishAudited writes the deployment.finish entry of the deploy id (the
// audit's trigger fills its resources), queues the deploy's notification
// and answers the deploys still waiting on it (nil for none), in one
// statement: every deploy's end pays for it.
func finishAudited(ctx context.Context, q dbos.Querier, id, actor string, details map[string]any) ([]string, error) {
	b, err := json.Marshal(details)
	if err != nil {
		return nil, fmt.Errorf("encode audit entry: %w", err)
	}
	payload, err := eventPayload(id, deploy.EventDeployment)
	if err != nil {
		return nil, fmt.Errorf("finish deployment: %w", err)
	}
	// The dependents are an array, so that the statement has its one row
	// (and n is read) when there are none.
	var dependents []string
	var notified int
	err = q.QueryRow(ctx, `WITH audit AS (
			INSERT INTO manent.audit (time, actor, action, target, details) VALUES (now(), $1, $2, $3, $4::jsonb)
		), n AS (
			SELECT pg_notify($5, $6)
		)
		SELECT ARRAY(SELECT d.id FROM manent.dependencies AS x JOIN manent.deployments AS d ON d.id = x.deployment_id
				WHERE x.depends_on = $3 AND d.state = ANY($7) ORDER BY d.id),
			(SELECT count(*) FROM n)`,
		actor, auditFinish, id, string(b), Channel, payload, activeStates).Scan(&dependents, &notified)
	if err != nil {
		return nil, wrap("finish deployment", err)
	}
	if len(dependents) == 0 {
		return nil, nil
	}
	return dependents, nil
}

// inventorySource is what the inventory takes of a deploy.
type inventorySource struct {
	id, tenant, application, environment, requester, sha256 string
	artifact                                                deploy.Artifact
	dryRun                                                  bool
}

const inventorySourceColumns = "id, tenant, application, environment, requester, sha256, artifact, dry_run"

func (s *inventorySource) dest() []any {
	return []any{&s.id, &s.tenant, &s.application, &s.environment, &s.requester, &s.sha256, &s.artifact, &s.dryRun}
}

// inServiceUpsert is what putting a deploy in service keeps: the history
// keeps the first time the deploy went in service, and only if it did: a
// deploy put in service later already is wins.
const inServiceUpsert = `ON CONFLICT (tenant, application, environment) DO UPDATE SET
			deployment_id = EXCLUDED.deployment_id, artifact = EXCLUDED.artifact, sha256 = EXCLUDED.sha256,
			deployed_at = EXCLUDED.deployed_at, deployed_by = EXCLUDED.deployed_by
		WHERE i.deployment_id = EXCLUDED.deployment_id OR i.deployed_at <= EXCLUDED.deployed_at`

// putInService makes the deploy the current release of its environment,
// unless a deploy put in service later already is.
func putInService(ctx context.Context, q dbos.Querier, d inventorySource, at time.Time) error {
	art, err := json.Marshal(d.artifact)
	if err != nil {
		return fmt.Errorf("update inventory: %w", err)
	}
	_, err = q.Exec(ctx, `WITH placed AS (INSERT INTO manent.inventory AS i
			(tenant, application, environment, deployment_id, artifact, sha256, deployed_at, deployed_by)
		VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8)
		`+inServiceUpsert+`
		RETURNING tenant, application, environment, deployment_id, deployed_at)
		INSERT INTO manent.inventory_history (deployment_id, tenant, application, environment, deployed_at)
		SELECT deployment_id, tenant, application, environment, deployed_at FROM placed
		ON CONFLICT (deployment_id) DO NOTHING`,
		d.tenant, d.application, d.environment, d.id, string(art), d.sha256, micro(at), d.requester)
	return wrap("update inventory", err)
}

// restoreInService gives the environment back the release in service before
// d (previous, "" for none), if d is still the one in service. Undone, d
// leaves the history: the one before the restored release is not d.
func restoreInService(ctx context.Context, q dbos.Querier, d inventorySource, previous string) error {
	if _, err := q.Exec(ctx, `DELETE FROM manent.inventory_history WHERE deployment_id = $1`, d.id); err != nil {
		return wrap("restore inventory", err)
	}
	if previous == "" {
		_, err := q.Exec(ctx, `DELETE FROM manent.inventory WHERE tenant = $1 AND application = $2 AND environment = $3
			AND deployment_id = $4`, d.tenant, d.application, d.environment, d.id)
		return wrap("restore inventory", err)
	}
	_, err := q.Exec(ctx, `UPDATE manent.inventory AS i SET deployment_id = p.id, artifact = p.artifact, sha256 = p.sha256,
			deployed_at = COALESCE(p.finished_at, now()), deployed_by = p.requester
		FROM manent.deployments AS p
		WHERE p.id = $5 AND i.tenant = $1 AND i.application = $2 AND i.environment = $3 AND i.deployment_id = $4`,
		d.tenant, d.application, d.environment, d.id, previous)
	return wrap("restore inventory", err)
}

// recordFailure makes the deploy the last failure of its environment.
func recordFailure(ctx context.Context, q dbos.Querier, d inventorySource, o deploy.Outcome, at time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO manent.last_failures AS f
			(tenant, application, environment, deployment_id, step, error, finished_at, rollback)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (tenant, application, environment) DO UPDATE SET
			deployment_id = EXCLUDED.deployment_id, step = EXCLUDED.step, error = EXCLUDED.error,
			finished_at = EXCLUDED.finished_at, rollback = EXCLUDED.rollback
		WHERE f.finished_at <= EXCLUDED.finished_at`,
		d.tenant, d.application, d.environment, d.id, o.FailedStep, o.Error, micro(at), o.Rollback)
	return wrap("record last failure", err)
}

func stepType(t string) string {
	if t == "" {
		return deploy.StepTypeStandard
	}
	return t
}
