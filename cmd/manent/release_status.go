package main

import (
	"io"

	"github.com/spf13/cobra"
)

func (a *app) releaseStatusCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "status ID",
		Short:   "Show a release: its deploys with their states and rollback states",
		Example: "  manent release status shop-2026-10 -o json",
		Args:    exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			r, err := a.client().Release(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.emit(r, func(w io.Writer) error { return writeRelease(w, r) })
		}),
	}
}
