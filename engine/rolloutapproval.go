package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// A wave with approval: true waits before its first batch, once the waves
// before it passed, for the approvals the environment's governance asks of
// the deploy (deploy.WaveApprovalRequirement): an operation of its own
// (approval[N]), RUNNING while it asks, and a durable wait like a pause.
// The answers are stored by the service, keyed by the wave's pass, apart
// from the deploy's own approvals; each answer wakes the workflow. Enough
// approvals let the wave start; a rejection, the expiry or an abort fail
// the rollout as a failed wave (then the rollback policy); a cancel stops
// it.

// approvalAsked is what DBOS records of the start of a wave's approval.
type approvalAsked struct {
	Start time.Time                  `json:"start"`
	Req   deploy.ApprovalRequirement `json:"req"`
}

// approvalLook is one reading of the answers to a wave's approval.
type approvalLook struct {
	rolloutLook
	Approved   int    `json:"approved"`
	RejectedBy string `json:"rejected_by,omitempty"`
	Comment    string `json:"comment,omitempty"`
}

func (r *run) approvalOp(pass int) op {
	pos := wavePosition + 2*(pass-1)
	return op{deployID: r.in.ID, key: deploy.StepKey{Step: deploy.StepApproval, Pass: pass, Kind: deploy.KindRun},
		step: deploy.PlannedStep{Name: deploy.StepApproval, Type: stepTypeRollout}, pos: pos}
}

// asksApproval reports whether pass waits for approvals before it starts.
func (r *run) asksApproval(pass int) bool {
	plan := r.eff.RolloutPlan
	return plan != nil && pass >= 1 && pass <= len(plan.Passes) && plan.Passes[pass-1].Approval &&
		!r.in.Descriptor.DryRun
}

// awaitApproval waits for the approvals of pass; nil results when they
// were given. It holds no slot of the process meanwhile.
func (r *run) awaitApproval(ctx dbos.Context, pass int, done string) (_ *DeployResult, _ *failure, err error) {
	defer r.idle(ctx, &err)()
	p := r.eff.RolloutPlan.Passes[pass-1]
	o := r.approvalOp(pass)
	asked, err := dbos.RunAsTransaction(ctx, r.e.ds, func(c context.Context, tx dbos.Tx) (approvalAsked, error) {
		r.live = true
		if err := r.e.unfenced(c); err != nil {
			return approvalAsked{}, err
		}
		d, err := r.e.store.Get(c, r.in.ID)
		if err != nil {
			return approvalAsked{}, restartable(err)
		}
		req := deploy.WaveApprovalRequirement(d.Decision.Approvals)
		rec := o.start()
		at := rec.StartedAt.Truncate(time.Microsecond)
		rec.StartedAt = &at
		rec.Output = map[string]string{deploy.OutputApprovalRequired: strconv.Itoa(req.Count),
			deploy.OutputApprovalGroups: strings.Join(req.Groups, ","), deploy.OutputApprovalRoles: strings.Join(req.Roles, ","),
			deploy.OutputApprovalExpires: at.Add(req.Expiry).Format(time.RFC3339Nano)}
		if _, err := r.e.rec.Advance(c, tx, nil, deploy.StepEffects{}, rec, deploy.BeginOptions{}); err != nil {
			return approvalAsked{}, restartable(err)
		}
		n := newNotice(r.in.ID, deploy.NoticeApproval, o.key.Name(), string(deploy.StepRunning))
		if err := r.e.recordNotice(tx, n, &r.in.Descriptor, jobDeployment(&r.in)); err != nil {
			return approvalAsked{}, restartable(err)
		}
		return approvalAsked{Start: at, Req: req}, nil
	}, r.e.txOptions(stepRolloutApproval)...)
	if err != nil {
		return nil, nil, fmt.Errorf("ask the approval of wave %s: %w", p.Name, err)
	}
	until := asked.Start.Add(asked.Req.Expiry)
	name := o.key.Name()
	r.note(name, "info", "wave %s: waiting for %d approval(s) until %s", p.Name, asked.Req.Count, until.UTC().Format(time.RFC3339))
	end := func(state deploy.StepState, how string, n int, msg string) error {
		out := map[string]string{deploy.OutputApprovalRequired: strconv.Itoa(asked.Req.Count),
			deploy.OutputApprovalGroups: strings.Join(asked.Req.Groups, ","), deploy.OutputApprovalRoles: strings.Join(asked.Req.Roles, ","),
			deploy.OutputApprovalExpires: until.Format(time.RFC3339Nano), "approved": strconv.Itoa(n),
			deploy.OutputApprovalEnd: how}
		return r.endRolloutOp(ctx, o, asked.Start, state, out, msg, "")
	}
	for {
		look, err := readStep(ctx, stepRolloutApprovalLook, func(c context.Context) (approvalLook, error) {
			return r.lookApprovals(c, pass, until)
		})
		if err != nil {
			return nil, nil, fmt.Errorf("approval of wave %s: %w", p.Name, err)
		}
		var msg, how string
		switch {
		case look.Cancelled:
			if err := end(deploy.StepCancelled, deploy.ApprovalEndCancelled, look.Approved, ""); err != nil {
				return nil, nil, err
			}
			msg = deploy.CancelledAt(look.CancelledBy, done, name)
			r.note(name, "warn", "%s", msg)
			return &DeployResult{State: deploy.StateCancelled, Error: msg, CancelledBy: look.CancelledBy}, nil, nil
		case look.Action == deploy.RolloutActionAbort:
			res, f := r.aborted(look.By, look.Reason)
			if err := end(deploy.StepError, deploy.ApprovalEndCancelled, look.Approved, res.Error); err != nil {
				return nil, nil, err
			}
			return &res, f, nil
		case look.RejectedBy != "":
			how = deploy.ApprovalEndRejected
			msg = fmt.Sprintf("wave %s rejected by %s", p.Name, look.RejectedBy)
			if look.Comment != "" {
				msg += ": " + look.Comment
			}
		case look.Approved >= asked.Req.Count:
			if err := end(deploy.StepSuccess, deploy.ApprovalEndApproved, look.Approved, ""); err != nil {
				return nil, nil, err
			}
			r.note(name, "info", "wave %s: approved (%d of %d)", p.Name, look.Approved, asked.Req.Count)
			return nil, nil, nil
		case look.Left <= 0:
			how = deploy.ApprovalEndExpired
			msg = fmt.Sprintf("the approval of wave %s expired at %s with %d of %d approval(s)", p.Name,
				until.UTC().Format(time.RFC3339), look.Approved, asked.Req.Count)
		}
		if msg != "" {
			if err := end(deploy.StepError, how, look.Approved, msg); err != nil {
				return nil, nil, err
			}
			r.note(name, "error", "%s: the rollout aborts", msg)
			return &DeployResult{State: deploy.StateError, Error: msg},
				&failure{step: deploy.StepApproval, message: msg, always: true}, nil
		}
		// Woken early by an answer, a request or a cancel.
		if err := r.nap(ctx, look.Left); err != nil {
			return nil, nil, fmt.Errorf("approval of wave %s: %w", p.Name, err)
		}
	}
}

// lookApprovals reads the deploy and the answers to pass's approval: the
// requester's own never counts, one rejection is enough.
func (r *run) lookApprovals(c context.Context, pass int, until time.Time) (approvalLook, error) {
	d, err := r.e.store.Get(c, r.in.ID)
	if err != nil {
		return approvalLook{}, err
	}
	l := approvalLook{rolloutLook: rolloutLook{Cancelled: d.CancelRequested, CancelledBy: d.CancelledBy, Left: time.Until(until)}}
	if q := d.RolloutRequest; q != nil {
		l.Action, l.By, l.Reason = q.Action, q.By, q.Reason
	}
	for _, a := range d.WaveApprovals {
		// An answer after the deadline is too late, even when it was
		// stored before the workflow woke to tell the expiry.
		if a.Pass != pass || a.Identity == d.Requester || !a.Time.Before(until) {
			continue
		}
		if !a.Approved && l.RejectedBy == "" {
			l.RejectedBy, l.Comment = a.Identity, a.Comment
		}
		if a.Approved {
			l.Approved++
		}
	}
	return l, nil
}
