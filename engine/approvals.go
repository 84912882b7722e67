package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// Deploys that need approvals wait in the manent.approval workflow, on the
// wait queue, which never takes a deploy slot. Its ID is the deploy's with
// ":approval": the deploy workflow keeps the deploy's own ID, and is
// enqueued by the approval workflow, in the same transaction that moves
// the deploy to ENQUEUED, once enough identities approved.
const (
	approvalWorkflow = "manent.approval"
	waitQueue        = "manent.wait"
	governanceTopic  = "governance"
)

func approvalWorkflowID(id string) string { return id + ":approval" }

// ApprovalInput is the input of the wait workflow: what the deploy waits
// for, in this order: its dependencies (after), its time (schedule.at),
// then approvals and its change ticket.
type ApprovalInput struct {
	Deploy DeployInput `json:"deploy"`
	// Approvals is set when an approval rule matched; Require says what it asks.
	Approvals bool                       `json:"approvals,omitempty"`
	Require   deploy.ApprovalRequirement `json:"require"`
	// ExpiresAt ends the wait for approvals; zero until they are requested.
	ExpiresAt time.Time `json:"expires_at"`
	// Change is set when a change ticket must be opened and approved.
	Change *deploy.ChangeRequirement `json:"change,omitempty"`
	// After and AfterExpiresAt: the dependencies and the end of their wait.
	After          []string  `json:"after,omitempty"`
	AfterExpiresAt time.Time `json:"after_expires_at"`
	// At is schedule.at.
	At *time.Time `json:"at,omitempty"`
}

// approvalState is what one evaluation of the answers found.
type approvalState struct {
	Outcome string `json:"outcome"` // waiting, approved, rejected, expired, gone
	Reason  string `json:"reason,omitempty"`
	// ChangeRejected is set when the ITSM rejected the change.
	ChangeRejected bool `json:"change_rejected,omitempty"`
}

// approvalWorkflowFn waits for the approvals: woken by every answer and by
// cancel (Send), and by its expiry (the Recv timeout, a durable sleep).
func (e *Engine) approvalWorkflowFn(ctx dbos.Context, in ApprovalInput) (DeployResult, error) {
	if len(in.After) > 0 {
		res, done, err := e.waitDependencies(ctx, in)
		if err != nil || done {
			return res, err
		}
	}
	if in.At != nil {
		res, done, err := e.waitUntil(ctx, in)
		if err != nil || done {
			return res, err
		}
	}
	if !in.Approvals && in.Change == nil {
		return e.release(ctx, in)
	}
	// Approvals are requested only now that the deploy can really start.
	expires, err := dbos.RunAsStep(ctx, func(c context.Context) (time.Time, error) {
		if !in.ExpiresAt.IsZero() {
			return in.ExpiresAt, nil
		}
		at := time.Now().UTC().Add(in.Require.Expiry)
		_, err := e.store.Transition(c, in.Deploy.ID, waitingStates, deploy.StateAwaitingApproval, &at)
		return at, err
	}, dbos.WithStepName("manent.approvals.request"), dbos.WithStepMaxRetries(10))
	if err != nil {
		return DeployResult{}, err
	}
	in.ExpiresAt = expires
	var ticket *deploy.ChangeTicket
	if in.Change != nil {
		t, err := dbos.RunAsStep(ctx, func(c context.Context) (changeResult, error) {
			return e.openChange(c, in)
		}, e.changeStepOptions("change:open")...)
		if err != nil {
			// Without a ticket the deploy does not start.
			return e.endWait(ctx, in, nil, deploy.StateError, "change:open failed: "+err.Error())
		}
		if t.Cancelled {
			return DeployResult{State: deploy.StateCancelled}, nil
		}
		ticket = &t.Ticket
		in.Deploy.Change = ticket
	}
	for {
		st, err := dbos.RunAsStep(ctx, func(c context.Context) (approvalState, error) {
			return e.evaluateApprovals(c, in, ticket)
		}, dbos.WithStepName("manent.approvals.evaluate"), dbos.WithStepMaxRetries(10))
		if err != nil {
			return DeployResult{}, err
		}
		switch st.Outcome {
		case "gone":
			if ticket != nil {
				e.closeChangeStep(ctx, in.Deploy.ID, ticket, "cancelled")
			}
			return DeployResult{State: deploy.StateCancelled}, nil
		case "approved":
			return e.release(ctx, in)
		case "rejected", "expired":
			state := deploy.StateRejected
			if st.Outcome == "expired" {
				state = deploy.StateExpired
			}
			// A change the ITSM rejected needs no closing; one still open does.
			if ticket != nil && !st.ChangeRejected {
				e.closeChangeStep(ctx, in.Deploy.ID, ticket, "cancelled")
			}
			return e.endWait(ctx, in, ticket, state, st.Reason)
		}
		// Waiting: sleep until the next answer, a cancel, or the expiry. The
		// timeout is computed from the stored expiry, so a resumed wait ends
		// at the same instant.
		wait := time.Until(in.ExpiresAt)
		if ticket != nil && wait > e.changePollInterval() {
			// The ITSM does not call back: ask it again after a while.
			wait = e.changePollInterval()
		}
		if _, err := sleepOrWake(ctx, governanceTopic, wait); err != nil {
			return DeployResult{}, fmt.Errorf("wait for approvals: %w", err)
		}
	}
}

// evaluateApprovals reads the deploy, its answers and the state of its
// change ticket once.
func (e *Engine) evaluateApprovals(ctx context.Context, in ApprovalInput, ticket *deploy.ChangeTicket) (approvalState, error) {
	d, err := e.store.Get(ctx, in.Deploy.ID)
	if err != nil {
		return approvalState{}, err
	}
	if d.State.Terminal() {
		return approvalState{Outcome: "gone"}, nil
	}
	changeApproved := ticket == nil
	if ticket != nil {
		cs, err := e.changes[ticket.Connector].Status(ctx, ticket.ID)
		switch {
		case err != nil && deploy.IsPermanent(err):
			return approvalState{Outcome: "rejected", ChangeRejected: true,
				Reason: fmt.Sprintf("change %s: %v", ticketLabel(ticket), err)}, nil
		case err != nil:
			// A temporary ITSM failure: look again at the next poll.
			e.log.Warn("read change state", "deployment", in.Deploy.ID, "ticket", ticket.ID, "error", err)
		case cs == deploy.ChangeRejected:
			return approvalState{Outcome: "rejected", ChangeRejected: true,
				Reason: fmt.Sprintf("change %s rejected in the ITSM", ticketLabel(ticket))}, nil
		case cs == deploy.ChangeApproved:
			changeApproved = true
		}
	}
	approvers := 0
	if !in.Approvals {
		in.Require.Count = 0
	}
	for _, a := range d.Approvals {
		if a.Identity == d.Requester {
			continue // refused at Approve; never counted even if written by hand
		}
		if !a.Approved {
			reason := fmt.Sprintf("rejected by %s", a.Identity)
			if a.Comment != "" {
				reason += ": " + a.Comment
			}
			return approvalState{Outcome: "rejected", Reason: reason}, nil
		}
		approvers++
	}
	if approvers >= in.Require.Count && changeApproved {
		return approvalState{Outcome: "approved"}, nil
	}
	if !time.Now().Before(in.ExpiresAt) {
		reason := fmt.Sprintf("%d of %d approvals before %s", approvers, in.Require.Count, in.ExpiresAt.UTC().Format(time.RFC3339))
		if !changeApproved {
			reason = fmt.Sprintf("change %s not approved in the ITSM before %s", ticketLabel(ticket), in.ExpiresAt.UTC().Format(time.RFC3339))
		}
		return approvalState{Outcome: "expired", Reason: reason}, nil
	}
	return approvalState{Outcome: "waiting"}, nil
}

// enqueueDeploy enqueues the deploy workflow on its environment's queue,
// on the caller's transaction.
func (e *Engine) enqueueDeploy(in DeployInput, tx any) error {
	part := in.Effective.Partition()
	_, err := dbos.Enqueue[DeployResult](e.dbos, e.queueFor(part), deployWorkflow, in,
		dbos.WithEnqueueWorkflowID(in.ID),
		dbos.WithEnqueueQueuePartitionKey(part),
		dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion),
		dbos.WithEnqueueTransaction(tx))
	if err != nil {
		return fmt.Errorf("enqueue deploy workflow: %w", err)
	}
	return nil
}

// enqueueApproval enqueues the approval workflow on the wait queue.
func (e *Engine) enqueueApproval(in ApprovalInput, tx any) error {
	_, err := dbos.Enqueue[DeployResult](e.dbos, waitQueue, approvalWorkflow, in,
		dbos.WithEnqueueWorkflowID(approvalWorkflowID(in.Deploy.ID)),
		dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion),
		dbos.WithEnqueueTransaction(tx))
	if err != nil {
		return fmt.Errorf("enqueue approval workflow: %w", err)
	}
	return nil
}

// wake tells the approval workflow of a deploy to look again.
func (e *Engine) wake(id string) {
	if err := dbos.Send(e.dbos, approvalWorkflowID(id), "look", governanceTopic); err != nil {
		e.log.Warn("wake approval workflow", "deployment", id, "error", err)
	}
}

// Approve implements deploy.Service.
func (e *Engine) Approve(ctx context.Context, id, comment string) (*deploy.Deployment, error) {
	return e.answer(ctx, id, comment, true)
}

// Reject implements deploy.Service.
func (e *Engine) Reject(ctx context.Context, id, comment string) (*deploy.Deployment, error) {
	return e.answer(ctx, id, comment, false)
}

func (e *Engine) answer(ctx context.Context, id, comment string, approved bool) (*deploy.Deployment, error) {
	who := deploy.IdentityFrom(ctx)
	d, err := e.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := e.mayAnswer(who, d); err != nil {
		return nil, err
	}
	if len(comment) > 2048 {
		return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "comment longer than 2048 characters")
	}
	if _, err := e.store.AddApproval(ctx, deploy.Approval{DeploymentID: id, Identity: who.Subject,
		Approved: approved, Comment: comment, Time: time.Now().UTC()}); err != nil {
		return nil, err
	}
	e.wake(id)
	return e.store.Get(ctx, id)
}

// mayAnswer checks that who may approve or reject d.
func (e *Engine) mayAnswer(who deploy.Identity, d *deploy.Deployment) error {
	if err := e.require(who, resourceOf(d), deploy.PermApprove); err != nil {
		return err
	}
	if d.State != deploy.StateAwaitingApproval || d.Decision.Approvals == nil {
		return deploy.Errorf(deploy.ECONFLICT, "deployment %q is not awaiting approval: %s", d.ID, d.State)
	}
	if who.Subject == d.Requester {
		return deploy.Errorf(deploy.EFORBIDDEN, "you requested deployment %q: another identity must approve it", d.ID)
	}
	req := d.Decision.Approvals
	if len(req.Groups) == 0 && len(req.Roles) == 0 {
		return nil
	}
	if slices.ContainsFunc(who.Groups, func(g string) bool { return slices.Contains(req.Groups, g) }) {
		return nil
	}
	for _, role := range req.Roles {
		ok, err := e.authz.HasRole(who, d.Tenant, role)
		if err != nil {
			return fmt.Errorf("read roles: %w", err)
		}
		if ok {
			return nil
		}
	}
	var from []string
	if len(req.Groups) > 0 {
		from = append(from, "a member of "+strings.Join(req.Groups, ", "))
	}
	if len(req.Roles) > 0 {
		from = append(from, "a holder of "+strings.Join(req.Roles, ", "))
	}
	return deploy.Errorf(deploy.EFORBIDDEN, "approvals of %q must come from %s", d.ID, strings.Join(from, " or "))
}

// PendingApprovals implements deploy.Service.
func (e *Engine) PendingApprovals(ctx context.Context) ([]deploy.Deployment, error) {
	who := deploy.IdentityFrom(ctx)
	page, err := e.List(ctx, deploy.ListFilter{States: []deploy.State{deploy.StateAwaitingApproval}, First: 500})
	if err != nil {
		return nil, err
	}
	out := []deploy.Deployment{}
	for _, d := range page.Items {
		full, err := e.store.Get(ctx, d.ID)
		if err != nil {
			continue
		}
		if e.mayAnswer(who, full) != nil {
			continue
		}
		answered := slices.ContainsFunc(full.Approvals, func(a deploy.Approval) bool { return a.Identity == who.Subject })
		if !answered {
			out = append(out, *full)
		}
	}
	return out, nil
}
