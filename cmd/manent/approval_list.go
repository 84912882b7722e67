package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

func (a *app) approvalListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "approvals",
		Short: "List the deploys awaiting an approval you may give",
		Long: `List the deploys waiting in AWAITING_APPROVAL that you may approve or reject: not
your own, not those you already answered. With -o json, a list of status JSON.`,
		Example: `  manent approvals
  manent approvals -o json | jq -r '.[].id'`,
		Args: noArgs,
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			items, err := a.client().PendingApprovals(cmd.Context())
			if err != nil {
				return err
			}
			out := make([]json.RawMessage, 0, len(items))
			for _, p := range items {
				out = append(out, p.Status)
			}
			return a.emit(out, func(w io.Writer) error { return approvalsTable(w, items) })
		}),
	}
}

func approvalsTable(w io.Writer, items []client.PendingApproval) error {
	if len(items) == 0 {
		_, err := fmt.Fprintln(w, "No deploys await your approval.")
		return err
	}
	tw := newTable(w)
	row(tw, "ID", "DEPLOYMENT", "VERSION", "REQUESTER", "RULE", "APPROVALS", "EXPIRES")
	for _, p := range items {
		approvals, expires, rule := "", "", p.Decision.Rule
		if p.Approval != nil {
			approvals = fmt.Sprintf("%d/%d", approvedCount(p.Approval), p.Approval.Required)
			expires = timestamp(p.Approval.ExpiresAt)
		}
		if w := awaitingWave(p.Status); p.State == client.DeploymentStatePending && w != nil {
			// A running deploy awaits the approval of a wave of its rollout.
			approvals, rule = fmt.Sprintf("%d/%d", waveApproved(w.Approval), w.Approval.Required), "wave "+w.Name
			if w.Approval.ExpiresAt != nil {
				expires = timestamp(*w.Approval.ExpiresAt)
			}
		}
		row(tw, p.Id, p.Tenant+"/"+p.Application+"/"+p.Environment, p.Artifact.Version,
			p.Requester, rule, approvals, expires)
	}
	return tw.Flush()
}

// awaitingWave is the wave of a status's rollout that awaits approval, nil
// for none.
func awaitingWave(status json.RawMessage) *deploy.RolloutWaveStatus {
	r, err := statusRollout(status)
	if err != nil || r == nil {
		return nil
	}
	for i, w := range r.Waves {
		if w.State == deploy.WaveAwaitingApproval && w.Approval != nil {
			return &r.Waves[i]
		}
	}
	return nil
}

// waveApproved counts the distinct identities that approved a wave.
func waveApproved(a *deploy.StatusApproval) int {
	seen := map[string]bool{}
	for _, ap := range a.Approvals {
		if ap.Approved {
			seen[ap.Identity] = true
		}
	}
	return len(seen)
}
