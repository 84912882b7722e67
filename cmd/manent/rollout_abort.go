package main

import (
	"github.com/spf13/cobra"

	"manent.dev/manent/deploy"
)

func (a *app) rolloutAbortCmd() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "abort ID",
		Short: "Abort a rollout and roll back per the rollback policy",
		Long: `Abort the rollout of a running deploy: at once in a bake or a pause, else once the
step in flight ended. The deploy fails (ERROR) and, with automatic rollback on, every
batch done is compensated, the most recent first; later waves are never touched.
Unlike cancel, which stops without rolling back.

Exit codes: 3 when you may not (deployment.cancel), 2 when the deploy is not running
its rollout (also once its last wave passed, or while its rollback runs), an abort is
already asked, or it does not exist.`,
		Example: `  manent rollout abort hello-20250102-1 --reason "latency regression"`,
		Args:    exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			return a.rolloutAction(cmd.Context(), args[0], deploy.RolloutActionAbort, reason)
		}),
	}
	cmd.Flags().StringVarP(&reason, "reason", "m", "", "why you abort it (in the deploy's error and the audit log)")
	return cmd
}
