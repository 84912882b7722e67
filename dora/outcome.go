package dora

import "time"

// States of an outcome that the metrics tell apart (the deploy states of
// the spec); any other terminal state is a deploy that did not ship.
const (
	StateSuccess = "SUCCESS"
	StateError   = "ERROR"
)

// Outcome is what the metrics read of one finished deploy. The caller
// leaves out dry runs: they never reach a target.
type Outcome struct {
	ID          string
	Tenant      string
	Application string
	Environment string
	SubmittedAt time.Time
	StartedAt   *time.Time
	// FinishedAt is when the deploy ended; an outcome without it is still
	// running and counts nowhere.
	FinishedAt *time.Time
	State      string
	// TouchedTarget: a step acted on a target (an ERROR before that
	// changed nothing and is not a failed deployment).
	TouchedTarget bool
	// Rollback is the outcome of the deploy's automatic rollback
	// (completed, failed, not_needed, disabled, ...), "" when undecided;
	// only listed, as a failure is told by State.
	Rollback string
	// RollbackOf is the deploy this rollback deploy undoes, "" otherwise.
	RollbackOf string
	// Remediation: the descriptor flagged the deploy as fixing an earlier
	// one (remediation: true).
	Remediation bool
	// ChangeAt is the artifact's or commit's time when the descriptor gave
	// one (artifact.created_at, commit.time); lead time starts there, else
	// at submission.
	ChangeAt *time.Time
}

// env is the scope in which a failure is recovered and a remediation
// applies: one application in one environment of one tenant.
type env struct{ tenant, application, environment string }

func (o Outcome) env() env { return env{o.Tenant, o.Application, o.Environment} }

func (o Outcome) finished() bool { return o.FinishedAt != nil }

// shipped reports whether the deploy counts as a deployment: it succeeded,
// or it failed after changing a target. A deploy refused, cancelled or
// failed before touching anything changed nothing in production.
func (o Outcome) shipped() bool {
	return o.finished() && (o.State == StateSuccess || o.TouchedTarget)
}

// rework reports whether the deploy was unplanned work fixing an earlier
// one: flagged remediation, or made by a rollback.
func (o Outcome) rework() bool { return o.Remediation || o.RollbackOf != "" }

// leadStart is when the change began its way to production. A change time
// after the submission is a wrong clock or a wrong descriptor: the
// submission is the later bound that is known to be right.
func (o Outcome) leadStart() time.Time {
	if o.ChangeAt != nil && o.ChangeAt.Before(o.SubmittedAt) {
		return *o.ChangeAt
	}
	return o.SubmittedAt
}
