package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

func (a *app) stepListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "steps ID",
		Short: "List the operations of a deploy (steps, checkpoints, compensations) with their state, attempts, times and errors",
		Long: `List every operation of a deploy, in the order the status shows them: the steps of its
pipeline (with the checkpoint:<step> taken before a step the automatic rollback can
undo), then the compensations of its rollback (rollback:<step>), if one ran. The table
shows each one's kind (run, dry-run, checkpoint, rollback), state, attempts, start,
duration and error; -o json|yaml prints the steps array of the status JSON, with each
step's outputs, followed by the compensations in the same shape (kind "rollback").`,
		Example: `  manent steps hello-20250102-1
  manent steps hello-20250102-1 -o json | jq '.[] | select(.name == "config") | .output'
  manent steps hello-20250102-1 -o json | jq -r '.[] | select(.kind == "rollback") | .name + " " + .state'`,
		Args: exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			d, err := a.client().Deployment(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			ops := operations(d)
			if a.format == formatTable {
				return stepsTable(a.stdout, ops)
			}
			steps, err := statusSteps(d)
			if err != nil {
				return err
			}
			return a.emit(steps, nil)
		}),
	}
}

// operations are the steps the status shows, then the compensations.
func operations(d *client.DeploymentDetail) []client.StepDetail {
	ops := append([]client.StepDetail(nil), d.Steps...)
	if d.Rollback != nil {
		ops = append(ops, d.Rollback.Steps...)
	}
	return ops
}

// statusSteps is the steps array of the status JSON as the server wrote
// it, then one entry per compensation in the same shape. The status JSON
// keeps the compensations in its rollback section, with fewer fields: the
// API's steps give them all.
func statusSteps(d *client.DeploymentDetail) ([]json.RawMessage, error) {
	members, err := rawObject(d.Status)
	if err != nil {
		return nil, err
	}
	out := []json.RawMessage{}
	if s, ok := members["steps"]; ok && string(s) != "null" {
		if err := json.Unmarshal(s, &out); err != nil {
			return nil, fmt.Errorf("decode status json: %w", err)
		}
	}
	if d.Rollback == nil {
		return out, nil
	}
	for _, s := range d.Rollback.Steps {
		b, err := json.Marshal(compensationStatus(s))
		if err != nil {
			return nil, fmt.Errorf("encode json: %w", err)
		}
		out = append(out, b)
	}
	return out, nil
}

func compensationStatus(s client.StepDetail) deploy.StatusStep {
	st := deploy.StatusStep{Name: s.Name, Type: s.Type, Kind: deploy.KindRollback, State: deploy.StepState(s.State),
		Attempts: s.Attempts, Output: keyValues(s.Output)}
	if !s.StartedAt.IsZero() {
		t := s.StartedAt.UTC()
		st.StartedAt = &t
	}
	if !s.FinishedAt.IsZero() {
		t := s.FinishedAt.UTC()
		st.FinishedAt = &t
	}
	if s.Error != "" {
		e := s.Error
		st.Error = &e
	}
	return st
}

// stepKindWord is a kind as the status JSON spells it.
func stepKindWord(k client.StepKind) string {
	return strings.ReplaceAll(strings.ToLower(string(k)), "_", "-")
}

func stepsTable(w io.Writer, steps []client.StepDetail) error {
	tw := newTable(w)
	row(tw, "STEP", "KIND", "STATE", "ATTEMPTS", "STARTED", "DURATION", "ERROR")
	for _, s := range steps {
		row(tw, s.Name, stepKindWord(s.Kind), string(s.State), fmt.Sprint(s.Attempts), timestamp(s.StartedAt), stepDuration(s), s.Error)
	}
	return tw.Flush()
}
