package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
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
		approvals, expires := "", ""
		if p.Approval != nil {
			approvals = fmt.Sprintf("%d/%d", approvedCount(p.Approval), p.Approval.Required)
			expires = timestamp(p.Approval.ExpiresAt)
		}
		row(tw, p.Id, p.Tenant+"/"+p.Application+"/"+p.Environment, p.Artifact.Version,
			p.Requester, p.Decision.Rule, approvals, expires)
	}
	return tw.Flush()
}
