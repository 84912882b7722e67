package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// scheduleDeleted is the answer of schedule delete in JSON and YAML.
type scheduleDeleted struct {
	Name    string `json:"name"`
	Deleted bool   `json:"deleted"`
}

func (a *app) scheduleDeleteCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "delete NAME",
		Short: "Stop a recurring schedule",
		Long: `Stop a recurring schedule: no tick starts a deploy any more. The deploys its ticks
already started go on (cancel them with manent cancel). Needs deployment.submit on
the schedule's environment. Submitting the descriptor again creates it afresh.`,
		Example: "  manent schedule delete hello-nightly",
		Args:    exactArgs("NAME"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if err := a.client().DeleteSchedule(cmd.Context(), args[0]); err != nil {
				return err
			}
			return a.emit(scheduleDeleted{Name: args[0], Deleted: true}, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "schedule %s deleted\n", args[0])
				return err
			})
		}),
	}
}
