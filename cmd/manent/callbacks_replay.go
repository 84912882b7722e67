package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) callbacksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "callbacks",
		Short: "Act on the callbacks of a deploy",
		Long: `The callbacks of a deploy receive its events over HTTP (docs/callbacks.md). Their
deliveries show in manent status ID -o json (callbacks[].deliveries).`,
	}
	cmd.AddCommand(a.callbacksReplayCmd())
	return cmd
}

func (a *app) callbacksReplayCmd() *cobra.Command {
	var delivery string
	var disabled bool
	cmd := &cobra.Command{
		Use:   "replay ID",
		Short: "Send the dead deliveries of a deploy's callbacks again",
		Long: `Send again the deliveries of a deploy's callbacks that are dead (the retry window
ended, or the receiver refused them): every one, or the one --delivery names. Each is
sent with its webhook-id and its payload as first sent, so a receiver that already has
it can tell. --include-disabled also replays deliveries to a URL that answered 410,
and enables that URL again for every deploy of the tenant (a 410 disables it for all
of them).

Needs deployment.cancel on the deploy. Exit codes: 3 when you may not, 2 when the
deploy has no callbacks or nothing to replay, or it (or the delivery) does not exist.`,
		Example: `  manent callbacks replay hello-20250102-1
  manent callbacks replay hello-20250102-1 --delivery hello-20250102-1:event:finished:callback:0`,
		Args: exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			out, err := a.client().ReplayCallbacks(cmd.Context(), args[0], delivery, disabled)
			if err != nil {
				return err
			}
			return a.emit(out, func(w io.Writer) error {
				for _, dl := range out {
					if _, err := fmt.Fprintf(w, "%s\t%s\t%s\n", dl.Id, dl.Event, dl.State); err != nil {
						return err
					}
				}
				_, err := fmt.Fprintf(w, "%d delivery(ies) sent again\n", len(out))
				return err
			})
		}),
	}
	cmd.Flags().StringVar(&delivery, "delivery", "", "the ID of the one delivery to replay (callbacks[].deliveries[].id)")
	cmd.Flags().BoolVar(&disabled, "include-disabled", false, "replay deliveries to URLs that answered 410 Gone too, enabling those URLs again for the tenant")
	return cmd
}
