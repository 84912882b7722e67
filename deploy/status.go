package deploy

import (
	"encoding/json"
	"strings"
	"time"
)

// Status is the status JSON shared by `manent status -o json`,
// GET /api/v1/deployments/{id} and the CI outcome (snake_case, as the spec
// shows). Sections of later capabilities (approval, after, rollout,
// rollback, exports) are omitted while they have nothing to say, and so
// are cancelled_by (who cancelled the deploy, once it ended CANCELLED) and
// schedule (the schedule.at a DELAYED deploy starts at).
type Status struct {
	ID          string     `json:"id"`
	Tenant      string     `json:"tenant"`
	Application string     `json:"application"`
	Environment string     `json:"environment"`
	State       State      `json:"state"`
	Requester   string     `json:"requester"`
	CancelledBy *string    `json:"cancelled_by,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	StartedAt   *time.Time `json:"started_at"`
	FinishedAt  *time.Time `json:"finished_at"`
	DryRun      bool       `json:"dry_run"`
	Release     *string    `json:"release"`
	// PromotedFrom is the deploy a promotion or a redeploy was made from.
	PromotedFrom *string          `json:"promoted_from,omitempty"`
	Artifact     StatusArtifact   `json:"artifact"`
	Decision     *Decision        `json:"governance,omitempty"`
	Approval     *StatusApproval  `json:"approval,omitempty"`
	After        *AfterStatus     `json:"after,omitempty"`
	Schedule     *StatusSchedule  `json:"schedule,omitempty"`
	Plan         []string         `json:"plan"`
	CurrentStep  *string          `json:"current_step"`
	Steps        []StatusStep     `json:"steps"`
	Rollout      *RolloutStatus   `json:"rollout,omitempty"`
	Rollback     *RollbackStatus  `json:"rollback,omitempty"`
	Exports      map[string]any   `json:"exports,omitempty"`
	Callbacks    []StatusCallback `json:"callbacks,omitempty"`
	Error        *string          `json:"error"`
}

// ApprovalWaiting is the status of an approval section that still waits
// for answers.
const ApprovalWaiting = "waiting"

// StatusApproval is the approval section of the status JSON.
type StatusApproval struct {
	// Status is waiting, approved, rejected or expired.
	Status    string     `json:"status"`
	Required  int        `json:"required"`
	Groups    []string   `json:"groups,omitempty"`
	Roles     []string   `json:"roles,omitempty"`
	Approvals []Approval `json:"approvals"`
	ExpiresAt *time.Time `json:"expires_at"`
}

// StatusSchedule is the schedule section of the status JSON.
type StatusSchedule struct {
	At time.Time `json:"at"`
}

// StatusArtifact is the artifact section of the status JSON.
type StatusArtifact struct {
	Type    string  `json:"type"`
	Name    string  `json:"name"`
	Version string  `json:"version"`
	Source  string  `json:"source"`
	SHA256  *string `json:"sha256"`
}

// StatusStep is one step of the status JSON: a run of a planned step (or
// its dry run), or the checkpoint taken before it. A custom step shows its
// type and the hash of its specification, never the specification.
type StatusStep struct {
	Name       string            `json:"name"`
	Type       string            `json:"type"`
	SpecHash   string            `json:"spec_hash,omitempty"`
	Kind       StepKind          `json:"kind"`
	State      StepState         `json:"state"`
	Attempts   int               `json:"attempts"`
	StartedAt  *time.Time        `json:"started_at"`
	FinishedAt *time.Time        `json:"finished_at"`
	Output     map[string]string `json:"output"`
	Error      *string           `json:"error"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// NewStatus builds the status JSON of d. Steps of the plan that have not
// run yet are listed as PENDING so a client sees the whole pipeline.
func NewStatus(d *Deployment) Status {
	sha := d.SHA256
	if sha == "" {
		sha = d.Artifact.SHA256
	}
	st := Status{
		ID: d.ID, Tenant: d.Tenant, Application: d.Application, Environment: d.Environment,
		State: d.State, Requester: d.Requester, CancelledBy: optional(d.Canceller()), CreatedAt: d.CreatedAt.UTC(),
		StartedAt: utc(d.StartedAt), FinishedAt: utc(d.FinishedAt), DryRun: d.DryRun,
		Release: optional(d.Release), PromotedFrom: optional(d.PromotedFrom),
		Artifact: StatusArtifact{
			Type: d.Artifact.Type, Name: d.Artifact.Name, Version: d.Artifact.Version,
			Source: RedactURL(d.Artifact.Source), SHA256: optional(sha),
		},
		Plan:        d.Plan.Names(),
		CurrentStep: optional(d.CurrentStep),
		Steps:       []StatusStep{},
		Error:       optional(d.Error),
	}
	if d.Decision.Rule != "" || len(d.Decision.Requires) > 0 {
		dec := d.Decision
		st.Decision = &dec
	}
	if req := d.Decision.Approvals; req != nil {
		st.Approval = newStatusApproval(d, req)
	}
	if len(d.Descriptor.After) > 0 {
		st.After = newAfterStatus(d)
	}
	if sc := d.Descriptor.Schedule; sc != nil && sc.At != nil {
		st.Schedule = &StatusSchedule{At: sc.At.UTC()}
	}
	if len(d.Exports) > 0 {
		st.Exports = map[string]any{}
		for _, e := range d.Exports {
			var v any = e.Value
			if e.Format == ExportTargets {
				var list []any
				if json.Unmarshal([]byte(e.Value), &list) == nil {
					v = list
				}
			}
			st.Exports[e.Name] = v
		}
	}
	for _, s := range d.Timeline() {
		st.Steps = append(st.Steps, d.statusStep(s))
	}
	st.Rollout = d.RolloutStatus()
	st.Callbacks = NewStatusCallbacks(d)
	if d.Rollback != "" || len(d.Compensations()) > 0 {
		st.Rollback = newRollbackStatus(d)
	}
	return st
}

func (d *Deployment) statusStep(s Step) StatusStep {
	out := s.Output
	if out == nil {
		out = map[string]string{}
	}
	return StatusStep{
		Name: s.Key().Name(), Type: s.Type, SpecHash: d.specHashAt(s.Position), Kind: s.Key().Kind, State: s.State, Attempts: s.Attempts,
		StartedAt: utc(s.StartedAt), FinishedAt: utc(s.FinishedAt),
		Output: out, Error: optional(s.Error),
	}
}

// StatusStepNamed is the record of d's operation named name (its
// StepKey.Name) as the status shows a step, nil when there is none: a step
// of the plan, a compensation of the rollback (rollback:deploy), or an
// operation of a rollout (bake[1], approval[2]), which the status lists
// elsewhere or not at all.
func (d *Deployment) StatusStepNamed(name string) *StatusStep {
	for i := len(d.Steps) - 1; i >= 0; i-- {
		if d.Steps[i].Key().Name() == name {
			s := d.statusStep(d.Steps[i])
			return &s
		}
	}
	return nil
}

// specHashAt is the spec_hash of the planned step at pos, "" for a
// standard step or a position outside the plan.
func (d *Deployment) specHashAt(pos int) string {
	if pos < 0 || pos >= len(d.Plan.Steps) {
		return ""
	}
	return d.Plan.Steps[pos].SpecHash
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func newStatusApproval(d *Deployment, req *ApprovalRequirement) *StatusApproval {
	a := &StatusApproval{Required: req.Count, Groups: req.Groups, Roles: req.Roles, Approvals: []Approval{}, ExpiresAt: utc(d.ApprovalExpiresAt)}
	approved := 0
	for _, ap := range d.Approvals {
		a.Approvals = append(a.Approvals, ap)
		if ap.Approved {
			approved++
		}
	}
	switch {
	case d.State == StateRejected:
		a.Status = "rejected"
	case d.State == StateExpired:
		a.Status = "expired"
	case d.State == StateAwaitingApproval:
		a.Status = ApprovalWaiting
	case approved >= req.Count:
		a.Status = "approved"
	case d.State.Terminal():
		// Ended before the approvals were given (cancelled, a dependency or
		// the change ticket failed): the approval did not happen.
		a.Status = strings.ToLower(string(d.State))
	default:
		a.Status = ApprovalWaiting
	}
	return a
}

// newAfterStatus says where the wait for d's dependencies is. The deploy's
// own state decides once it left WAITING_DEPENDENCY: a dependency's state
// may be unknown (unreadable, removed by retention) long after the wait
// ended, and one may succeed after the deploy was cancelled.
func newAfterStatus(d *Deployment) *AfterStatus {
	a := &AfterStatus{ExpiresAt: utc(d.AfterExpiresAt), Dependencies: []Dependency{}}
	failed := false
	all := len(d.Dependencies) == len(d.Descriptor.After)
	for _, dep := range d.Dependencies {
		a.Dependencies = append(a.Dependencies, dep)
		if dep.State != StateSuccess {
			all = false
		}
		if dep.State.Terminal() && dep.State != StateSuccess {
			failed = true
		}
	}
	switch {
	case d.State == StateDependencyFailed:
		a.Status, a.Reason = "failed", d.Error
	case d.State == StateCancelled && d.CancelledFrom == StateWaitingDependency:
		// The cancel ended the wait; its dependencies may have ended since.
		a.Status = "cancelled"
	case all:
		a.Status = "satisfied"
	case d.State == StateWaitingDependency && failed:
		a.Status = "failed"
	case d.State == StateWaitingDependency:
		a.Status = "waiting"
	case d.State == StateError && d.StartedAt == nil:
		// Abandoned by a worker that stopped while it waited.
		a.Status = "error"
	default:
		// Left the wait for its time, its approvals or its queue: every
		// dependency had succeeded.
		a.Status = "satisfied"
	}
	return a
}

func newRollbackStatus(d *Deployment) *RollbackStatus {
	r := &RollbackStatus{State: d.Rollback, Steps: []RollbackStatusStep{}}
	for _, s := range d.Compensations() {
		r.Steps = append(r.Steps, RollbackStatusStep{Name: s.Key().Name(), State: s.State,
			StartedAt: utc(s.StartedAt), FinishedAt: utc(s.FinishedAt), Error: optional(s.Error)})
	}
	if r.State == "" {
		r.State = RollbackRunning
	}
	return r
}

// Timeline lists what a deploy did and will do, for its status: its
// change:open, then every planned step in order (its checkpoint, then its
// runs, or a PENDING placeholder while none began), then the records of
// steps outside the plan (change:close). Compensations are apart.
func (d *Deployment) Timeline() []Step {
	kind := KindRun
	if d.DryRun {
		kind = KindDryRun
	}
	byPosition := map[int][]Step{}
	var before, after []Step
	for _, s := range d.Steps {
		switch {
		case s.Kind == KindRollback:
		case s.Position < 0:
			before = append(before, s)
		case s.Position >= len(d.Plan.Steps):
			after = append(after, s)
		default:
			byPosition[s.Position] = append(byPosition[s.Position], s)
		}
	}
	out := before
	for i, p := range d.Plan.Steps {
		recs := byPosition[i]
		ran := false
		for _, s := range recs {
			ran = ran || s.Kind != KindCheckpoint
		}
		out = append(out, recs...)
		if !ran {
			out = append(out, Step{DeploymentID: d.ID, Name: p.Name, Position: i, Type: p.Type, Kind: kind, State: StepPending})
		}
	}
	return append(out, after...)
}

// Compensations lists the compensations of the automatic rollback in the
// order they ran.
func (d *Deployment) Compensations() []Step {
	var out []Step
	for _, s := range d.Steps {
		if s.Kind == KindRollback {
			out = append(out, s)
		}
	}
	return out
}
