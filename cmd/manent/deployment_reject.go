package main

import "github.com/spf13/cobra"

func (a *app) deploymentRejectCmd() *cobra.Command {
	var comment string
	cmd := &cobra.Command{
		Use:   "reject ID",
		Short: "Reject a deploy awaiting approval",
		Long: `Reject a deploy that waits in AWAITING_APPROVAL: it ends REJECTED and nothing runs.
One rejection is enough.

Exit codes: 3 when you may not answer it (no deployment.approve, you requested it,
not in the required groups), 2 when it is not awaiting approval or does not exist.`,
		Example: `  manent reject hello-20250102-1 --comment "not during the launch"`,
		Args:    exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			return a.answer(cmd.Context(), args[0], comment, false)
		}),
	}
	cmd.Flags().StringVarP(&comment, "comment", "m", "", "why you reject (kept in the audit log)")
	return cmd
}
