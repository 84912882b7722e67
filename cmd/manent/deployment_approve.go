package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

func (a *app) deploymentApproveCmd() *cobra.Command {
	var comment string
	cmd := &cobra.Command{
		Use:   "approve ID",
		Short: "Approve a deploy awaiting approval",
		Long: `Approve a deploy that waits in AWAITING_APPROVAL. Once the identities the governance
rule asks for have approved, it is ENQUEUED with the same ID and runs. The requester
of a deploy can never approve it, and one identity counts once.

Exit codes: 3 when you may not approve it (no deployment.approve, you requested it,
not in the required groups), 2 when it is not awaiting approval or does not exist.`,
		Example: `  manent approve hello-20250102-1 --comment "checked the release notes"`,
		Args:    exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			return a.answer(cmd.Context(), args[0], comment, true)
		}),
	}
	cmd.Flags().StringVarP(&comment, "comment", "m", "", "why you approve (kept in the audit log)")
	return cmd
}

// answer approves or rejects a deploy and says where that leaves it.
func (a *app) answer(ctx context.Context, id, comment string, approve bool) error {
	c := a.client()
	var d *client.DeploymentDetail
	var err error
	if approve {
		d, err = c.Approve(ctx, id, comment)
	} else {
		d, err = c.Reject(ctx, id, comment)
	}
	if err != nil {
		return err
	}
	return a.emit(d.Status, func(w io.Writer) error {
		verb := "approved"
		if !approve {
			verb = "rejected"
		}
		msg := fmt.Sprintf("deployment %s: %s; now %s", d.Id, verb, d.State)
		switch {
		case approve && d.State == client.DeploymentStateAwaitingApproval && d.Approval != nil &&
			approvedCount(d.Approval) >= d.Approval.Required:
			// The approvals are complete with this answer: the deploy leaves the
			// wait as soon as the server sees it (and any change ticket is approved).
			msg = fmt.Sprintf("deployment %s: approved; the %d approval(s) required are given", d.Id, d.Approval.Required)
		case d.State == client.DeploymentStatePending && awaitingWave(d.Status) != nil:
			w := awaitingWave(d.Status)
			msg = fmt.Sprintf("deployment %s: %s wave %s; %d of %d approval(s) given", d.Id, verb, w.Name, waveApproved(w.Approval), w.Approval.Required)
		case d.State == client.DeploymentStatePending && approve:
			msg = fmt.Sprintf("deployment %s: approved the pending wave; the rollout goes on", d.Id)
		case d.State == client.DeploymentStatePending:
			msg = fmt.Sprintf("deployment %s: rejected the pending wave; the rollout aborts, then its rollback policy applies", d.Id)
		case d.State == client.DeploymentStateAwaitingApproval && d.Approval != nil:
			msg += " (" + stillRequired(d.Approval)
			if !d.Approval.ExpiresAt.IsZero() {
				msg += ", expires " + timestamp(d.Approval.ExpiresAt)
			}
			msg += ")"
		}
		_, err := fmt.Fprintln(w, msg)
		return err
	})
}

// approvedCount counts the distinct identities that approved.
func approvedCount(a *client.ApprovalDetail) int {
	seen := map[string]bool{}
	for _, ap := range a.Approvals {
		if ap.Approved {
			seen[ap.Identity] = true
		}
	}
	return len(seen)
}

// stillRequired says what the approval waits for: "1 more approval needed
// (groups: ops)".
func stillRequired(a *client.ApprovalDetail) string {
	more := max(a.Required-approvedCount(a), 0)
	plural := "s"
	if more == 1 {
		plural = ""
	}
	s := fmt.Sprintf("%d more approval%s needed", more, plural)
	if len(a.Groups) > 0 {
		s += " (groups: " + strings.Join(a.Groups, ", ") + ")"
	}
	return s
}
