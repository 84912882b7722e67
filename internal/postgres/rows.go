package postgres

import (
	"time"

	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
)

// The rows mirror the tables of migrations/; the converters below are the
// only place where a column meets a field of the domain, so a column rename
// never reaches the API. The jsonb columns hold the domain's own JSON form.

type deploymentRow struct {
	bun.BaseModel `bun:"table:manent.deployments,alias:d"`

	ID              string            `bun:"id,pk"`
	Tenant          string            `bun:"tenant,notnull"`
	Application     string            `bun:"application,notnull"`
	Environment     string            `bun:"environment,notnull"`
	State           string            `bun:"state,notnull"`
	Requester       string            `bun:"requester,notnull"`
	RequesterGroups []string          `bun:"requester_groups,type:jsonb,notnull"`
	CreatedAt       time.Time         `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	StartedAt       *time.Time        `bun:"started_at"`
	FinishedAt      *time.Time        `bun:"finished_at"`
	UpdatedAt       time.Time         `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
	DryRun          bool              `bun:"dry_run,notnull"`
	Release         *string           `bun:"release"`
	RollbackOf      string            `bun:"rollback_of,notnull"`
	Schedule        string            `bun:"schedule,notnull"`
	PromotedFrom    string            `bun:"promoted_from,notnull"`
	Artifact        deploy.Artifact   `bun:"artifact,type:jsonb,notnull"`
	SHA256          string            `bun:"sha256,notnull"`
	Descriptor      deploy.Descriptor `bun:"descriptor,type:jsonb,notnull"`
	Effective       deploy.Effective  `bun:"effective,type:jsonb,notnull"`
	Plan            deploy.Plan       `bun:"plan,type:jsonb,notnull"`
	Decision        deploy.Decision   `bun:"decision,type:jsonb,notnull"`
	CurrentStep     string            `bun:"current_step,notnull"`
	Error           string            `bun:"error,notnull"`
	CancelRequested bool              `bun:"cancel_requested,notnull"`
	CancelledBy     string            `bun:"cancelled_by,notnull"`
	CancelledFrom   string            `bun:"cancelled_from,notnull"`
	ApprovalExpires *time.Time        `bun:"approval_expires_at"`
	AfterExpires    *time.Time        `bun:"after_expires_at"`
	Exports         []deploy.Export   `bun:"exports,type:jsonb,notnull"`
	Rollback        string            `bun:"rollback,notnull"`
	RolloutRequest  string            `bun:"rollout_request,notnull"`
	RolloutBy       string            `bun:"rollout_request_by,notnull"`
	RolloutReason   string            `bun:"rollout_request_reason,notnull"`
	RolloutAt       *time.Time        `bun:"rollout_request_at"`
	RolloutPause    string            `bun:"rollout_request_pause,notnull"`
	// LogSeq is what processes of earlier versions numbered the log with,
	// kept for them (manent.log_sequences holds the numbers): read by the
	// statements that return the whole row, never written.
	LogSeq int64 `bun:"log_seq,scanonly"`
}

type stepRow struct {
	bun.BaseModel `bun:"table:manent.deployment_steps,alias:s"`

	DeploymentID string            `bun:"deployment_id,pk"`
	Name         string            `bun:"name,pk"`
	Pass         int               `bun:"pass,pk"`
	Batch        int               `bun:"batch,pk"`
	Target       string            `bun:"target,pk"`
	Kind         string            `bun:"kind,pk"`
	Runs         int               `bun:"runs,notnull"`
	Position     int               `bun:"position,notnull"`
	Type         string            `bun:"type,notnull"`
	State        string            `bun:"state,notnull"`
	Attempts     int               `bun:"attempts,notnull"`
	StartedAt    *time.Time        `bun:"started_at"`
	FinishedAt   *time.Time        `bun:"finished_at"`
	Output       map[string]string `bun:"output,type:jsonb,notnull"`
	Error        string            `bun:"error,notnull"`
}

type logRow struct {
	bun.BaseModel `bun:"table:manent.deployment_logs,alias:l"`

	DeploymentID string    `bun:"deployment_id,pk"`
	Seq          int64     `bun:"seq,pk"`
	Time         time.Time `bun:"time,nullzero,notnull,default:current_timestamp"`
	Step         string    `bun:"step,notnull"`
	Level        string    `bun:"level,notnull"`
	Message      string    `bun:"message,notnull"`
}

type auditRow struct {
	bun.BaseModel `bun:"table:manent.audit,alias:a"`

	ID      int64          `bun:"id,pk,autoincrement"`
	Time    time.Time      `bun:"time,nullzero,notnull,default:current_timestamp"`
	Actor   string         `bun:"actor,notnull"`
	Action  string         `bun:"action,notnull"`
	Target  string         `bun:"target,notnull"`
	Details map[string]any `bun:"details,type:jsonb,notnull"`
}

// toDeploymentRow converts a deploy to its row. Times are cut to PostgreSQL's
// microseconds so that what is read back equals what was written.
func toDeploymentRow(d deploy.Deployment) *deploymentRow {
	state := d.State
	if state == "" {
		state = deploy.StateEnqueued
	}
	var release *string
	if d.Release != "" {
		release = &d.Release
	}
	row := &deploymentRow{
		ID: d.ID, Tenant: d.Tenant, Application: d.Application, Environment: d.Environment,
		State: string(state), Requester: d.Requester, RequesterGroups: nonNilStrings(d.RequesterGroups),
		CreatedAt: micro(d.CreatedAt), StartedAt: microPtr(d.StartedAt), FinishedAt: microPtr(d.FinishedAt),
		UpdatedAt: micro(d.UpdatedAt), DryRun: d.DryRun, Release: release, RollbackOf: d.RollbackOf, Schedule: d.Schedule, PromotedFrom: d.PromotedFrom,
		Artifact: d.Artifact, SHA256: d.SHA256, Descriptor: d.Descriptor, Effective: d.Effective,
		Plan: d.Plan, Decision: d.Decision, CurrentStep: d.CurrentStep, Error: d.Error,
		CancelRequested: d.CancelRequested, CancelledBy: d.CancelledBy,
		CancelledFrom: string(d.CancelledFrom), ApprovalExpires: microPtr(d.ApprovalExpiresAt),
		AfterExpires: microPtr(d.AfterExpiresAt), Exports: nonNilExports(d.Exports), Rollback: d.Rollback,
	}
	if q := d.RolloutRequest; q != nil {
		row.RolloutRequest, row.RolloutBy, row.RolloutReason, row.RolloutPause = string(q.Action), q.By, q.Reason, q.Pause
		row.RolloutAt = microPtr(&q.At)
	}
	return row
}

func fromDeploymentRow(r *deploymentRow) deploy.Deployment {
	d := deploy.Deployment{
		ID: r.ID, Tenant: r.Tenant, Application: r.Application, Environment: r.Environment,
		State: deploy.State(r.State), Requester: r.Requester, RequesterGroups: emptyToNil(r.RequesterGroups),
		CreatedAt: r.CreatedAt.UTC(), StartedAt: utcPtr(r.StartedAt), FinishedAt: utcPtr(r.FinishedAt),
		UpdatedAt: r.UpdatedAt.UTC(), DryRun: r.DryRun, RollbackOf: r.RollbackOf, Schedule: r.Schedule, PromotedFrom: r.PromotedFrom,
		Artifact: r.Artifact, SHA256: r.SHA256, Descriptor: r.Descriptor, Effective: r.Effective,
		Plan: r.Plan, Decision: r.Decision, CurrentStep: r.CurrentStep, Error: r.Error,
		CancelRequested: r.CancelRequested, CancelledBy: r.CancelledBy,
		CancelledFrom: deploy.State(r.CancelledFrom), ApprovalExpiresAt: utcPtr(r.ApprovalExpires),
		AfterExpiresAt: utcPtr(r.AfterExpires), Exports: emptyToNil(r.Exports), Rollback: r.Rollback,
	}
	if r.Release != nil {
		d.Release = *r.Release
	}
	if r.RolloutRequest != "" {
		d.RolloutRequest = &deploy.RolloutRequest{Action: deploy.RolloutAction(r.RolloutRequest),
			By: r.RolloutBy, Reason: r.RolloutReason, Pause: r.RolloutPause}
		if r.RolloutAt != nil {
			d.RolloutRequest.At = r.RolloutAt.UTC()
		}
	}
	return d
}

func fromStepRow(r *stepRow) deploy.Step {
	return deploy.Step{
		DeploymentID: r.DeploymentID, Name: r.Name, Pass: r.Pass, Batch: r.Batch, Target: r.Target,
		Kind: deploy.StepKind(r.Kind), Runs: r.Runs, Position: r.Position, Type: r.Type,
		State: deploy.StepState(r.State), Attempts: r.Attempts,
		StartedAt: utcPtr(r.StartedAt), FinishedAt: utcPtr(r.FinishedAt),
		Output: r.Output, Error: r.Error,
	}
}

func toLogRow(l deploy.LogLine, seq int64) *logRow {
	level := l.Level
	if level == "" {
		level = "info"
	}
	return &logRow{DeploymentID: l.DeploymentID, Seq: seq, Time: micro(l.Time), Step: text(l.Step), Level: level, Message: line(l.Message)}
}

func fromLogRow(r *logRow) deploy.LogLine {
	return deploy.LogLine{DeploymentID: r.DeploymentID, Seq: r.Seq, Time: r.Time.UTC(), Step: r.Step, Level: r.Level, Message: r.Message}
}

func toAuditRow(e deploy.AuditEntry) *auditRow {
	details := e.Details
	if details == nil {
		details = map[string]any{}
	}
	return &auditRow{Time: micro(e.Time), Actor: e.Actor, Action: e.Action, Target: e.Target, Details: details}
}

func micro(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Microsecond)
}

func microPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	m := micro(*t)
	return &m
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func nonNilExports(e []deploy.Export) []deploy.Export {
	if e == nil {
		return []deploy.Export{}
	}
	return e
}

func emptyToNil[T any](e []T) []T {
	if len(e) == 0 {
		return nil
	}
	return e
}
