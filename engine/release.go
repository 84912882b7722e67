package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

// A composite release is followed by the manent.release workflow on the wait
// queue: it never takes a deploy slot. Its ID is the release's with
// ":release", since release and deploy IDs are separate namespaces and a
// deploy's workflow already has the deploy's ID.
const (
	releaseWorkflow = "manent.release"
	releaseTopic    = "release"
)

func releaseWorkflowID(id string) string { return id + ":release" }

// ReleaseInput is the input of the release workflow, stored by DBOS: the
// deploys as they are submitted (IDs and after resolved), in topological
// order, and who submitted them, whose identity the deploys and the
// rollbacks run with.
type ReleaseInput struct {
	ID              string               `json:"id"`
	Requester       string               `json:"requester"`
	RequesterGroups []string             `json:"requester_groups,omitempty"`
	OnFailure       string               `json:"on_failure"`
	Members         []ReleaseMemberInput `json:"members"`
}

// ReleaseMemberInput is one deploy of a release input.
type ReleaseMemberInput struct {
	Name       string            `json:"name"`
	Descriptor deploy.Descriptor `json:"descriptor"`
}

// ReleaseResult is the release workflow's output.
type ReleaseResult struct {
	State deploy.ReleaseState `json:"state"`
	Error string              `json:"error,omitempty"`
}

func (in ReleaseInput) identity() deploy.Identity {
	return deploy.Identity{Subject: in.Requester, Groups: in.RequesterGroups}
}

func (in ReleaseInput) memberIDs() []string {
	ids := make([]string, len(in.Members))
	for i, m := range in.Members {
		ids[i] = m.Descriptor.ID
	}
	return ids
}

// notStarted are the states of a deploy that onFailure stop cancels: it
// waits and has not run anything.
var notStarted = []deploy.State{deploy.StateScheduled, deploy.StateDelayed, deploy.StateWaitingDependency,
	deploy.StateAwaitingApproval, deploy.StateEnqueued}

// SubmitRelease implements deploy.Service: the release is checked as a
// whole, then every deploy with the submission checks of a single deploy
// (its dependencies inside the release excepted), and only then accepted.
func (e *Engine) SubmitRelease(ctx context.Context, raw []byte) (*deploy.ReleaseSubmission, error) {
	rd, err := descriptor.ParseRelease(raw)
	if err != nil {
		return nil, err
	}
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	ds, err := descriptor.ValidateReleaseMembers(rd)
	if err != nil {
		return nil, err
	}
	resolved, err := descriptor.ResolveReleaseMembers(rd, ds)
	if err != nil {
		return nil, err
	}
	for _, d := range resolved {
		if d.Tenant == "" {
			d.Tenant = e.cfg.Server.DefaultTenant
		}
	}
	// A resubmit returns the existing release before the checks, which
	// could refuse it now that its deploys exist.
	if existing, err := e.store.GetRelease(ctx, rd.ID); err == nil {
		if !e.mayReadRelease(who, existing) {
			return nil, deploy.Errorf(deploy.ECONFLICT, "release ID %q is already in use", rd.ID)
		}
		return &deploy.ReleaseSubmission{Release: *existing}, nil
	} else if deploy.ErrorCode(err) != deploy.ENOTFOUND {
		return nil, err
	}
	ids := make([]string, len(resolved))
	for i, d := range resolved {
		ids[i] = d.ID
	}
	var refusal releaseRefusal
	for i, d := range resolved {
		p := fmt.Sprintf("deploys[%d]", i)
		cp := *d
		sub, err := e.submitDescriptor(ctx, &cp, deploy.SubmitOptions{ValidateOnly: true, SkipAfterCheckFor: ids, Release: rd.ID})
		switch {
		case err != nil && deploy.ErrorCode(err) == deploy.EINTERNAL:
			return nil, err
		case err != nil:
			refusal.add(p, err)
		case !sub.Validated:
			refusal.add(p, deploy.Errorf(deploy.ECONFLICT, "deploy ID %q is already in use", d.ID))
		}
		if rd.OnFailure == deploy.OnFailureRollback {
			res := deploy.Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
			if err := e.require(who, res, deploy.PermRollback); err != nil {
				if deploy.ErrorCode(err) == deploy.EINTERNAL {
					return nil, err
				}
				refusal.add(p, &deploy.Error{Code: deploy.ErrorCode(err), Message: "onFailure rollback: " + deploy.ErrorMessage(err)})
			}
		}
	}
	if err := refusal.err(); err != nil {
		return nil, err
	}
	order, err := descriptor.TopoOrder(rd)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]int, len(rd.Deploys))
	rel := deploy.Release{ID: rd.ID, Requester: who.Subject, OnFailure: rd.OnFailure, State: deploy.ReleasePending, Descriptor: *rd}
	for i, m := range rd.Deploys {
		byName[m.Name] = i
		d := resolved[i]
		rel.Deploys = append(rel.Deploys, deploy.ReleaseDeploy{Name: m.Name, DeploymentID: d.ID, Tenant: d.Tenant,
			Application: d.Application, Environment: d.Environment, After: m.After})
	}
	in := ReleaseInput{ID: rd.ID, Requester: who.Subject, RequesterGroups: who.Groups, OnFailure: rd.OnFailure}
	for _, name := range order {
		in.Members = append(in.Members, ReleaseMemberInput{Name: name, Descriptor: *resolved[byName[name]]})
	}
	existing, created, err := e.store.CreateRelease(ctx, rel, func(tx any) error { return e.enqueueRelease(in, tx) })
	if err != nil {
		return nil, err
	}
	if !created {
		if !e.mayReadRelease(who, existing) {
			return nil, deploy.Errorf(deploy.ECONFLICT, "release ID %q is already in use", rd.ID)
		}
		return &deploy.ReleaseSubmission{Release: *existing}, nil
	}
	return &deploy.ReleaseSubmission{Release: *existing, Created: true}, nil
}

// releaseRefusal gathers the refusals of every deploy of a release, so the
// author sees them all at once.
type releaseRefusal struct {
	code   deploy.Code
	fields []deploy.FieldError
}

// codeRank orders the codes of a refusal: the answer carries the first.
var codeRank = []deploy.Code{deploy.EUNAUTHENTICATED, deploy.EFORBIDDEN, deploy.EINVALID, deploy.ECONFLICT, deploy.EUNPROCESSABLE}

func (r *releaseRefusal) add(path string, err error) {
	code := deploy.ErrorCode(err)
	if r.code == "" || slices.Index(codeRank, code) < slices.Index(codeRank, r.code) {
		r.code = code
	}
	var de *deploy.Error
	if errors.As(err, &de) && len(de.Fields) > 0 {
		for _, f := range de.Fields {
			switch f.Path {
			case "":
				f.Path = path + ".descriptor"
			default:
				f.Path = path + ".descriptor." + f.Path
			}
			if de.Message != "" {
				f.Message = de.Message + ": " + f.Message
			}
			r.fields = append(r.fields, f)
		}
		return
	}
	r.fields = append(r.fields, deploy.FieldError{Path: path, Message: deploy.ErrorMessage(err)})
}

func (r *releaseRefusal) err() error {
	if len(r.fields) == 0 {
		return nil
	}
	return &deploy.Error{Code: r.code, Message: "release refused", Fields: r.fields}
}

// enqueueRelease enqueues the release workflow on the wait queue, on the
// caller's transaction.
func (e *Engine) enqueueRelease(in ReleaseInput, tx any) error {
	_, err := dbos.Enqueue[ReleaseResult](e.dbos, waitQueue, releaseWorkflow, in,
		dbos.WithEnqueueWorkflowID(releaseWorkflowID(in.ID)),
		dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion),
		dbos.WithEnqueueTransaction(tx))
	if err != nil {
		return fmt.Errorf("enqueue release workflow: %w", err)
	}
	return nil
}

// releaseQueued is what the first step of a release did.
type releaseQueued struct {
	// Stopped: the release had already ended (cancelled) before it ran.
	Stopped bool   `json:"stopped,omitempty"`
	Refused string `json:"refused,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// releaseReading is one reading of the release's deploys.
type releaseReading struct {
	// Ended is set when the release is no longer PENDING (cancelled).
	Ended  deploy.ReleaseState     `json:"ended,omitempty"`
	States map[string]deploy.State `json:"states"`
	Errors map[string]string       `json:"errors,omitempty"`
}

func (r releaseReading) allEnded(in ReleaseInput) bool {
	for _, m := range in.Members {
		if !r.States[m.Name].Terminal() {
			return false
		}
	}
	return true
}

// failed lists the deploys that ended without success, in topological order.
func (r releaseReading) failed(in ReleaseInput) []string {
	var out []string
	for _, m := range in.Members {
		if st := r.States[m.Name]; st.Terminal() && st != deploy.StateSuccess {
			out = append(out, fmt.Sprintf("%s ended %s", m.Name, st))
		}
	}
	return out
}

// releaseWorkflowFn queues the deploys as its first step, then follows
// them, woken when one ends (wakeRelease) and by a safety poll, and applies
// onFailure. It only orchestrates: every side effect is a step.
func (e *Engine) releaseWorkflowFn(ctx dbos.Context, in ReleaseInput) (ReleaseResult, error) {
	q, err := dbos.RunAsStep(ctx, func(c context.Context) (releaseQueued, error) {
		return e.queueReleaseMembers(c, in)
	}, dbos.WithStepName("manent.release.queue"), dbos.WithStepMaxRetries(10))
	if err != nil {
		return ReleaseResult{}, err
	}
	if q.Stopped {
		return ReleaseResult{State: deploy.ReleaseCancelled}, nil
	}
	if q.Refused != "" {
		return e.finishRelease(ctx, in, deploy.ReleaseError, q.Reason)
	}
	poll := e.chainsPollInterval()
	stopped := false
	var st releaseReading
	for {
		st, err = dbos.RunAsStep(ctx, func(c context.Context) (releaseReading, error) {
			return e.readRelease(c, in)
		}, dbos.WithStepName("manent.release.evaluate"), dbos.WithStepMaxRetries(10))
		if err != nil {
			return ReleaseResult{}, err
		}
		if st.Ended != "" {
			return ReleaseResult{State: st.Ended}, nil
		}
		if !stopped && in.OnFailure != deploy.OnFailureContinue && len(st.failed(in)) > 0 {
			// stop and rollback: the deploys not started yet are cancelled,
			// those running finish.
			if _, err := dbos.RunAsStep(ctx, func(c context.Context) (bool, error) {
				return true, e.stopRelease(c, in, st)
			}, dbos.WithStepName("manent.release.stop"), dbos.WithStepMaxRetries(10)); err != nil {
				return ReleaseResult{}, err
			}
			stopped = true
			continue
		}
		if st.allEnded(in) {
			break
		}
		if _, err := sleepOrWake(ctx, releaseTopic, poll); err != nil {
			return ReleaseResult{}, fmt.Errorf("wait for the release's deploys: %w", err)
		}
		poll = min(2*poll, deploy.MaxChainsPollBackoff)
	}
	failed := st.failed(in)
	if len(failed) == 0 {
		return e.finishRelease(ctx, in, deploy.ReleaseSuccess, "")
	}
	reason := "deploys did not succeed: " + strings.Join(failed, ", ")
	if in.OnFailure == deploy.OnFailureRollback {
		if err := e.rollbackRelease(ctx, in, st); err != nil {
			return ReleaseResult{}, err
		}
	}
	return e.finishRelease(ctx, in, deploy.ReleaseError, reason)
}

// queueReleaseMembers submits the deploys in topological order with the
// requester's identity. A resumed step finds those already submitted and
// gets them back (Submit is idempotent by ID). A deploy refused now (a
// freeze started meanwhile) ends the release: those already queued are
// cancelled, the refused one is ERROR, the following ones CANCELLED.
func (e *Engine) queueReleaseMembers(ctx context.Context, in ReleaseInput) (releaseQueued, error) {
	ids := in.memberIDs()
	cctx := deploy.WithIdentity(ctx, in.identity())
	for i, m := range in.Members {
		// A cancel of the release stops the queuing between two deploys.
		rel, err := e.store.GetRelease(ctx, in.ID)
		if err != nil {
			return releaseQueued{}, err
		}
		if rel.State != deploy.ReleasePending {
			return releaseQueued{Stopped: true}, nil
		}
		// A step run again after a crash finds the deploys it already
		// created: they are not submitted (nor checked) again.
		if existing, err := e.store.Get(ctx, m.Descriptor.ID); err == nil && existing.Release == in.ID {
			continue
		}
		d := m.Descriptor
		sub, err := e.submitDescriptor(cctx, &d, deploy.SubmitOptions{SkipAfterCheckFor: ids, Release: in.ID})
		if err == nil && sub.Deployment.Release != in.ID {
			err = deploy.Errorf(deploy.ECONFLICT, "deploy ID %q is already in use", d.ID)
		}
		if err == nil {
			continue
		}
		if deploy.ErrorCode(err) == deploy.EINTERNAL {
			return releaseQueued{}, err
		}
		reason := deploy.ErrorMessage(err)
		if err := e.store.MarkReleaseDeploy(ctx, in.ID, m.Name, deploy.StateError, "refused: "+reason); err != nil {
			return releaseQueued{}, err
		}
		for _, later := range in.Members[i+1:] {
			if err := e.store.MarkReleaseDeploy(ctx, in.ID, later.Name, deploy.StateCancelled, "not queued: "+m.Name+" was refused"); err != nil {
				return releaseQueued{}, err
			}
		}
		for _, earlier := range in.Members[:i] {
			if err := e.cancelInternal(ctx, earlier.Descriptor.ID, in.Requester, nil); err != nil {
				return releaseQueued{}, err
			}
		}
		return releaseQueued{Refused: m.Name, Reason: fmt.Sprintf("deploy %s refused: %s", m.Name, reason)}, nil
	}
	return releaseQueued{}, nil
}

// readRelease reads the release and the states of its deploys in one query.
func (e *Engine) readRelease(ctx context.Context, in ReleaseInput) (releaseReading, error) {
	rel, err := e.store.GetRelease(ctx, in.ID)
	if err != nil {
		return releaseReading{}, err
	}
	out := releaseReading{States: map[string]deploy.State{}, Errors: map[string]string{}}
	if rel.State != deploy.ReleasePending {
		out.Ended = rel.State
	}
	for _, m := range rel.Deploys {
		st := m.State
		if st == "" {
			// Queued by the first step but gone since (retention): it will
			// never end, so the release does not wait for it.
			st = deploy.StateCancelled
		}
		out.States[m.Name] = st
		if m.Error != "" {
			out.Errors[m.Name] = m.Error
		}
	}
	return out, nil
}

// stopRelease cancels the deploys of the release that have not started.
func (e *Engine) stopRelease(ctx context.Context, in ReleaseInput, st releaseReading) error {
	for _, m := range in.Members {
		if slices.Contains(notStarted, st.States[m.Name]) {
			if err := e.cancelInternal(ctx, m.Descriptor.ID, in.Requester, notStarted); err != nil {
				return err
			}
		}
	}
	return nil
}

// cancelInternal cancels a deploy on behalf of a release (no permission
// check: the release's own policy, or a cancel already authorized). only
// restricts it to deploys in those states; a deploy that ended meanwhile
// is left alone.
func (e *Engine) cancelInternal(ctx context.Context, id, actor string, only []deploy.State) error {
	d, err := e.store.Get(ctx, id)
	if deploy.ErrorCode(err) == deploy.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	if d.State.Terminal() || (only != nil && !slices.Contains(only, d.State)) {
		return nil
	}
	res, err := e.store.RequestCancel(ctx, id, actor)
	if deploy.ErrorCode(err) == deploy.ECONFLICT {
		return nil
	}
	if err != nil {
		return err
	}
	if res.Immediate {
		e.wakeDependents(ctx, id)
		if slices.Contains(waitingStates, res.Before) {
			e.wake(id)
		} else {
			if err := dbos.CancelWorkflow(e.dbos, id); err != nil {
				e.log.Warn("cancel queued workflow", "deployment", id, "error", err)
			}
			e.closeChangeOfCancelled(ctx, d)
		}
	}
	return nil
}

func (e *Engine) finishRelease(ctx dbos.Context, in ReleaseInput, state deploy.ReleaseState, reason string) (ReleaseResult, error) {
	_, err := dbos.RunAsStep(ctx, func(c context.Context) (bool, error) {
		return e.store.FinishRelease(c, in.ID, state, reason, in.Requester)
	}, dbos.WithStepName("manent.release.finish"), dbos.WithStepMaxRetries(10))
	if err != nil {
		return ReleaseResult{}, fmt.Errorf("record release outcome: %w", err)
	}
	return ReleaseResult{State: state, Error: reason}, nil
}

// wakeRelease tells the release workflow of a deploy (or of a rollback of
// it) that the deploy ended: it reads the states again at once.
//
// When a deploy of a release under stop or rollback did not succeed, the
// deploys not started yet are cancelled here, before the deploy's
// dependents are woken: they then find themselves CANCELLED, as the spec's
// table says, instead of racing to DEPENDENCY_FAILED. The workflow's own
// stop step does the same for the cases without a wake-up.
func (e *Engine) wakeRelease(ctx context.Context, deploymentID string) {
	rel, err := e.store.DeploymentRelease(ctx, deploymentID)
	if err != nil || rel == "" {
		return
	}
	if err := e.stopOnFailure(ctx, rel, deploymentID); err != nil {
		e.log.Warn("stop release", "release", rel, "deployment", deploymentID, "error", err)
	}
	if err := dbos.Send(e.dbos, releaseWorkflowID(rel), "look", releaseTopic); err != nil {
		// The release may have ended (cancelled): nothing waits any more.
		e.log.Debug("wake release workflow", "release", rel, "deployment", deploymentID, "error", err)
	}
}

// mayReadRelease reports whether who holds deployment.read on every deploy.
func (e *Engine) mayReadRelease(who deploy.Identity, r *deploy.Release) bool {
	for _, m := range r.Deploys {
		if ok, err := e.authz.Allowed(who, m.Resource(), deploy.PermRead); err != nil || !ok {
			return false
		}
	}
	return true
}

// GetRelease implements deploy.Service: a release one of whose deploys the
// caller may not read is not found.
func (e *Engine) GetRelease(ctx context.Context, id string) (*deploy.Release, error) {
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	r, err := e.store.GetRelease(ctx, id)
	if err != nil {
		return nil, err
	}
	if !e.mayReadRelease(who, r) {
		return nil, deploy.Errorf(deploy.ENOTFOUND, "release %q not found", id)
	}
	return r, nil
}

// ListReleases implements deploy.Service: only fully readable releases.
func (e *Engine) ListReleases(ctx context.Context, f deploy.ReleaseFilter) (deploy.ReleasePage, error) {
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return deploy.ReleasePage{}, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	f.Readable = func(r deploy.Resource) bool {
		ok, err := e.authz.Allowed(who, r, deploy.PermRead)
		return err == nil && ok
	}
	return e.store.ListReleases(ctx, f)
}

// CancelRelease implements deploy.Service: the workflow is stopped first,
// so it queues or rolls back nothing more, then the unfinished deploys are
// cancelled (those running stop at their next step).
func (e *Engine) CancelRelease(ctx context.Context, id string) (*deploy.Release, error) {
	who := deploy.IdentityFrom(ctx)
	r, err := e.GetRelease(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, m := range r.Deploys {
		if err := e.require(who, m.Resource(), deploy.PermCancel); err != nil {
			return nil, err
		}
	}
	if r.State.Terminal() {
		return nil, deploy.Errorf(deploy.ECONFLICT, "release %q already ended: %s", id, r.State)
	}
	if err := dbos.CancelWorkflow(e.dbos, releaseWorkflowID(id)); err != nil {
		e.log.Warn("cancel release workflow", "release", id, "error", err)
	}
	if _, err := e.store.FinishRelease(ctx, id, deploy.ReleaseCancelled, "cancelled by "+who.Subject, who.Subject); err != nil {
		return nil, err
	}
	// Read again: the workflow may have queued deploys until it stopped.
	if r, err = e.store.GetRelease(ctx, id); err != nil {
		return nil, err
	}
	// Only deploys of this release: a state comes from a deploy that
	// carries the release (or its rollback), never from another deploy
	// that took the same ID.
	for _, m := range r.Deploys {
		if m.State.Active() {
			if err := e.cancelInternal(ctx, m.DeploymentID, who.Subject, nil); err != nil {
				return nil, err
			}
		}
		if st := deploy.State(m.RollbackState); m.RollbackDeploymentID != "" && st.Valid() && !st.Terminal() {
			if err := e.cancelInternal(ctx, m.RollbackDeploymentID, who.Subject, nil); err != nil {
				return nil, err
			}
		}
	}
	return e.store.GetRelease(ctx, id)
}

// stopOnFailure cancels the deploys of the release not started yet when
// deploymentID, one of its deploys, ended without success and the release
// stops on failure.
func (e *Engine) stopOnFailure(ctx context.Context, releaseID, deploymentID string) error {
	r, err := e.store.GetRelease(ctx, releaseID)
	if err != nil {
		return err
	}
	if r.State != deploy.ReleasePending || r.OnFailure == deploy.OnFailureContinue {
		return nil
	}
	failed := false
	for _, m := range r.Deploys {
		if m.DeploymentID == deploymentID {
			failed = m.State.Terminal() && m.State != deploy.StateSuccess
		}
	}
	if !failed {
		return nil
	}
	for _, m := range r.Deploys {
		if slices.Contains(notStarted, m.State) {
			if err := e.cancelInternal(ctx, m.DeploymentID, r.Requester, notStarted); err != nil {
				return err
			}
		}
	}
	return nil
}
