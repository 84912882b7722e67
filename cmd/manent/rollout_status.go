package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) rolloutStatusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status ID",
		Short: "Show where the rollout of a deploy stands",
		Long: `Show the rollout of a deploy: its state, one line per wave (state, targets done, bake,
gate), the targets left out, why it is paused and who may resume it. With -o json,
the rollout section of the status JSON (null for a deploy without rollout).`,
		Example: `  manent rollout status hello-20250102-1
  manent rollout status hello-20250102-1 -o json | jq -r .state`,
		Args: exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			d, err := a.client().Deployment(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			r, err := statusRollout(d.Status)
			if err != nil {
				return err
			}
			return a.emit(r, func(w io.Writer) error {
				if r == nil {
					_, err := fmt.Fprintf(w, "deployment %s has no rollout\n", d.Id)
					return err
				}
				return rolloutTable(w, r, a.now())
			})
		}),
	}
}
