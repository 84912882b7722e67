package main

import "github.com/spf13/cobra"

func (a *app) rolloutCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollout",
		Short: "Follow, pause, resume and abort the rollout of a deploy",
		Long: `A deploy whose environment configuration has a rollout deploys its targets in waves
and batches. These commands show where it stands and hold or stop it. Pausing,
resuming and aborting need deployment.cancel on the deploy's environment.`,
	}
	cmd.AddCommand(a.rolloutStatusCmd(), a.rolloutPauseCmd(), a.rolloutResumeCmd(), a.rolloutAbortCmd())
	return cmd
}
