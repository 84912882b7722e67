package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

func (a *app) deploymentCancelCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "cancel ID",
		Short: "Cancel a deploy",
		Long: `Cancel a deploy. One that has not started is CANCELLED at once; one that runs stops
at the start of its next step (the step in progress completes). Cancelling a deploy
that already ended is refused (exit 2).`,
		Example: `  manent cancel hello-20250102-1`,
		Args:    exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			d, err := a.client().Cancel(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.emit(d.Status, func(w io.Writer) error {
				var err error
				switch {
				case d.State == client.DeploymentStateCancelled:
					_, err = fmt.Fprintf(w, "deployment %s: CANCELLED\n", d.Id)
				case client.Terminal(d.State):
					_, err = fmt.Fprintf(w, "deployment %s already ended: %s\n", d.Id, d.State)
				default:
					_, err = fmt.Fprintf(w, "deployment %s: cancel requested; it stops at the start of its next step (now %s)\n", d.Id, d.State)
				}
				return err
			})
		}),
	}
}
