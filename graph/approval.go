package graph

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

// canApprove is the affordance of the Approve and Reject buttons. The
// Service decides again on the mutation; this only spares the viewer a
// button that would be refused: the permission, not the requester, no
// answer given yet, in a required group when the rule names groups.
func canApprove(ctx context.Context, svc deploy.Service, d *model.Deployment) bool {
	asked := pendingApproval(d)
	if asked == nil {
		return false
	}
	id := deploy.IdentityFrom(ctx)
	if id.Anonymous() || id.Subject == d.Requester {
		return false
	}
	for _, a := range asked.Approvals {
		if a.Identity == id.Subject {
			return false
		}
	}
	// With groups or roles, an approver is a member of a group or a holder
	// of a role (the server decides the same way on the mutation).
	if len(asked.Groups) > 0 || len(asked.Roles) > 0 {
		ok := slices.ContainsFunc(id.Groups, func(g string) bool { return slices.Contains(asked.Groups, g) }) ||
			slices.ContainsFunc(asked.Roles, func(r string) bool { return svc.HasRole(ctx, d.Tenant, r) })
		if !ok {
			return false
		}
	}
	res := deploy.Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
	return svc.Can(ctx, res, deploy.PermApprove)
}

// pendingApproval is the approval d asks now: its own while
// AWAITING_APPROVAL, or the one of the wave of its running rollout that
// awaits approval; nil when none.
func pendingApproval(d *model.Deployment) *model.ApprovalStatus {
	switch {
	case d.State == model.DeploymentStateAwaitingApproval:
		return d.Approval
	case d.State == model.DeploymentStatePending && d.Rollout != nil && d.Rollout.State == model.RolloutStateAwaitingApproval:
		for _, w := range d.Rollout.Waves {
			if w.State == model.WaveStateAwaitingApproval {
				return w.Approval
			}
		}
	}
	return nil
}

func toModelApproval(a *deploy.StatusApproval) *model.ApprovalStatus {
	if a == nil {
		return nil
	}
	out := &model.ApprovalStatus{
		Status: a.Status, Required: a.Required, Groups: nonNilStrings(a.Groups), Roles: nonNilStrings(a.Roles),
		Approvals: make([]model.Approval, len(a.Approvals)), ExpiresAt: a.ExpiresAt,
	}
	given := 0
	for i, ap := range a.Approvals {
		out.Approvals[i] = model.Approval{Identity: ap.Identity, Approved: ap.Approved, Comment: ap.Comment, Time: ap.Time}
		if ap.Approved {
			given++
		}
	}
	if a.Status == deploy.ApprovalWaiting {
		out.Remaining = max(a.Required-given, 0)
	}
	return out
}

// PendingApprovals streams the deploys awaiting an approval the caller may
// give: the list now, then the list again after each change of a deploy
// when it differs from the last one sent, or when the release in service
// of an environment of the list changed (the card's "In service now").
// Each list is read through the Service with the caller's context, so
// every event is authorized again. An error is returned only when the
// first list cannot be read.
//
// Reading the list costs a page of the deploys awaiting an approval (and
// more while they are the caller's own or answered), and every inbox sees
// the events of every deploy, so the list is read
// again only when an event can change it: its deploy was in the last list,
// or it (or a wave of its rollout) awaits approval now (one Get tells). A
// deploy that runs or ends in an environment of the list may change what
// is in service there: that environment's entry alone is read again.
func (l Live) PendingApprovals(ctx context.Context) (<-chan []deploy.Deployment, error) {
	ctx, cancel := context.WithCancel(ctx)
	// Subscribe before the first read: a change in between is not lost.
	pending := l.subscribe(ctx, "", true)
	first, err := l.Service.PendingApprovals(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	out := make(chan []deploy.Deployment)
	go func() {
		defer cancel()
		defer close(out)
		list, last := first, fingerprint(first)
		inService := l.inServiceOf(ctx, first)
		for {
			select {
			case out <- nonNilDeployments(list):
			case <-ctx.Done():
				return
			}
			listed := idSet(list)
			for {
				byID, ok := pending.waitByID(ctx)
				if !ok {
					return
				}
				relist, envs := l.mayChangeInbox(ctx, byID, listed, inService)
				if ctx.Err() != nil {
					return
				}
				if !relist {
					if l.inServiceChanged(ctx, inService, envs) {
						break
					}
					continue
				}
				next, err := l.Service.PendingApprovals(ctx)
				if err != nil {
					l.logError(ctx, "pending approvals: read", err)
					if ctx.Err() != nil || deploy.ErrorCode(err) == deploy.EUNAUTHENTICATED {
						return
					}
					continue
				}
				nextIn := l.inServiceOf(ctx, next)
				if fp := fingerprint(next); fp != last || !maps.Equal(nextIn, inService) {
					list, last, inService = next, fp, nextIn
					break
				}
				listed = idSet(next)
			}
		}
	}()
	return out, nil
}

// mayChangeInbox tells whether the events of a burst can change the list:
// one of their deploys was listed (it may have left), or awaits approval now,
// itself or a wave of its rollout (it may have entered, or its answers
// changed). A deploy the caller may not read cannot enter the list. When
// not, envs are the environments of the list (inService's keys) where one
// of them runs or ended: what is in service there may have changed.
func (l Live) mayChangeInbox(ctx context.Context, byID map[string]map[deploy.EventKind]bool, listed map[string]bool,
	inService map[deploy.Resource]string,
) (relist bool, envs []deploy.Resource) {
	for id := range byID {
		if listed[id] {
			return true, nil
		}
	}
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		d, _, err := l.get(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return false, nil
			}
			// ENOTFOUND is also what an unreadable deploy gives: not for this
			// inbox. A failed read may hide a change: read the list.
			if deploy.ErrorCode(err) == deploy.EINTERNAL {
				return true, nil
			}
			continue
		}
		// A wave of its rollout may await approval while the deploy runs
		// (PENDING): the inbox lists it as it does a deploy awaiting one.
		if d.State == deploy.StateAwaitingApproval || d.State == deploy.StatePending && d.WaveAwaitingApproval() > 0 {
			return true, nil
		}
		// Its activation, its end or its rollback changes the inventory.
		if _, ok := inService[d.Resource()]; ok && (d.State == deploy.StatePending || d.State.Terminal()) {
			envs = append(envs, d.Resource())
		}
	}
	return false, envs
}

// inServiceOf is the release in service (its deploy ID, "" for none) of
// every environment of list, one inventory entry each.
func (l Live) inServiceOf(ctx context.Context, list []deploy.Deployment) map[deploy.Resource]string {
	out := map[deploy.Resource]string{}
	for _, d := range list {
		res := d.Resource()
		if _, ok := out[res]; !ok {
			out[res] = l.inServiceAt(ctx, res)
		}
	}
	return out
}

// inServiceChanged reads the release in service of envs again into
// inService, and reports whether one of them changed.
func (l Live) inServiceChanged(ctx context.Context, inService map[deploy.Resource]string, envs []deploy.Resource) bool {
	changed := false
	for _, res := range envs {
		if id := l.inServiceAt(ctx, res); id != inService[res] {
			inService[res], changed = id, true
		}
	}
	return changed
}

func (l Live) inServiceAt(ctx context.Context, res deploy.Resource) string {
	e, err := l.Service.Environment(ctx, res)
	if err != nil {
		if ctx.Err() == nil && deploy.ErrorCode(err) != deploy.ENOTFOUND {
			l.logError(ctx, "pending approvals: read the release in service", err)
		}
		return ""
	}
	return e.DeploymentID
}

func idSet(ds []deploy.Deployment) map[string]bool {
	out := make(map[string]bool, len(ds))
	for _, d := range ds {
		out[d.ID] = true
	}
	return out
}

// fingerprint tells two lists apart by what the inbox shows: which deploys,
// in which state, with how many answers (to the deploy and to each wave of
// its rollout: a wave's answer changes neither its state nor updated_at).
func fingerprint(ds []deploy.Deployment) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.ID)
		b.WriteByte(' ')
		b.WriteString(string(d.State))
		b.WriteByte(' ')
		b.WriteString(d.UpdatedAt.UTC().Format(time.RFC3339Nano))
		for _, a := range d.Approvals {
			b.WriteByte(' ')
			b.WriteString(a.Identity)
		}
		for _, a := range d.WaveApprovals {
			fmt.Fprintf(&b, " %d:%s:%t", a.Pass, a.Identity, a.Approved)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// toModelLists converts the lists as gqlgen reads them; it closes its
// channel when lists closes, which completes the subscription.
func toModelLists(ctx context.Context, lists <-chan []deploy.Deployment) <-chan []model.Deployment {
	out := make(chan []model.Deployment)
	go func() {
		defer close(out)
		for l := range lists {
			select {
			case out <- toModelDeployments(l):
			case <-ctx.Done():
				for range lists {
				}
				return
			}
		}
	}()
	return out
}

func nonNilDeployments(ds []deploy.Deployment) []deploy.Deployment {
	if ds == nil {
		return []deploy.Deployment{}
	}
	return ds
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
