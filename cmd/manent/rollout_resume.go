package main

import (
	"github.com/spf13/cobra"

	"manent.dev/manent/deploy"
)

func (a *app) rolloutResumeCmd() *cobra.Command {
	var comment string
	cmd := &cobra.Command{
		Use:   "resume ID",
		Short: "Resume a paused rollout",
		Long: `Resume a paused rollout: it goes on with what follows the pause (the next batch, the
next wave). After a pause on a gate that could not judge its wave (or failed it under
on_failure: pause), resuming means you looked and judged: the wave counts as passed.
The audit log keeps who resumed it, when, and what the gates said. The resume
answers the pause in force when the server reads it, and ends that pause only: if
the rollout pauses again before it is stored, it is refused.

Exit codes: 3 when you may not (deployment.cancel), 2 when the rollout is not paused
or the deploy does not exist.`,
		Example: `  manent rollout resume hello-20250102-1 --comment "the canary's errors were a dashboard glitch"`,
		Args:    exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			return a.rolloutAction(cmd.Context(), args[0], deploy.RolloutActionResume, comment)
		}),
	}
	cmd.Flags().StringVarP(&comment, "comment", "m", "", "why you resume it (kept in the audit log)")
	return cmd
}
