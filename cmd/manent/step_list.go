package main

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) stepListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "steps ID",
		Short: "List the steps of a deploy with their state, attempts, times and errors",
		Long: `List every step of a deploy's pipeline. The table shows state, attempts, start,
duration and error; -o json|yaml prints the steps array of the status JSON, with
each step's outputs.`,
		Example: `  manent steps hello-20250102-1
  manent steps hello-20250102-1 -o json | jq '.[] | select(.name == "config") | .output'`,
		Args: exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			d, err := a.client().Deployment(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			var steps json.RawMessage = []byte("[]")
			if a.format != formatTable {
				members, err := rawObject(d.Status)
				if err != nil {
					return err
				}
				if s, ok := members["steps"]; ok && string(s) != "null" {
					steps = s
				}
			}
			return a.emit(steps, func(w io.Writer) error { return stepsTable(w, pipeline(d)) })
		}),
	}
}
