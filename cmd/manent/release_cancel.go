package main

import (
	"io"

	"github.com/spf13/cobra"
)

func (a *app) releaseCancelCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "cancel ID",
		Short: "Cancel a release",
		Long: `Stop the release (it queues and rolls back nothing more), then cancel its deploys
that have not finished: those waiting end CANCELLED at once, those running stop
at the start of their next step. Needs deployment.cancel on every deploy.`,
		Example: "  manent release cancel shop-2026-10",
		Args:    exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			r, err := a.client().CancelRelease(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.emit(toReleaseView(r), func(w io.Writer) error { return writeRelease(w, r) })
		}),
	}
}
