package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

func (a *app) rolloutPauseCmd() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "pause ID",
		Short: "Pause a running rollout after the batch in flight",
		Long: `Pause the rollout of a running deploy. The batch in flight ends first (a batch is
never stopped in the middle); the next batch or wave waits until someone resumes or
aborts the rollout, or until pause_timeout, when it aborts. The deploy keeps its
environment's slot while paused.

Exit codes: 3 when you may not (deployment.cancel), 2 when the rollout is not
running, already paused, has a request pending or no batch left to start (its last
batch has begun, its rollback runs), or the deploy does not exist.`,
		Example: `  manent rollout pause hello-20250102-1 --reason "error rate climbs in eu"`,
		Args:    exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			return a.rolloutAction(cmd.Context(), args[0], deploy.RolloutActionPause, reason)
		}),
	}
	cmd.Flags().StringVarP(&reason, "reason", "m", "", "why you pause it (shown in the status, kept in the audit log)")
	return cmd
}

// rolloutAction asks action of the rollout of id and says where that
// leaves it.
func (a *app) rolloutAction(ctx context.Context, id string, action deploy.RolloutAction, text string) error {
	c := a.client()
	var d *client.DeploymentDetail
	var err error
	var msg string
	switch action {
	case deploy.RolloutActionPause:
		d, err = c.PauseRollout(ctx, id, text)
		msg = "pause requested; the rollout pauses after the batch in flight"
	case deploy.RolloutActionResume:
		d, err = c.ResumeRollout(ctx, id, text)
		msg = "resumed; the rollout goes on"
	default:
		d, err = c.AbortRollout(ctx, id, text)
		msg = "abort requested; the rollout stops after the step in flight, then the rollback policy applies"
	}
	if err != nil {
		return err
	}
	return a.emit(d.Status, func(w io.Writer) error {
		if client.Terminal(d.State) {
			msg = "ended: " + string(d.State)
		}
		_, err := fmt.Fprintf(w, "deployment %s: %s\n", d.Id, msg)
		return err
	})
}
