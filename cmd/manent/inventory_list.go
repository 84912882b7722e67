package main

import (
	"io"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

// inventoryView is one environment of an application in JSON and YAML: its
// release in service (null fields when nothing is in service), the one
// before it and its last failure.
type inventoryView struct {
	Tenant       string        `json:"tenant"`
	Application  string        `json:"application"`
	Environment  string        `json:"environment"`
	DeploymentID *string       `json:"deployment_id"`
	Artifact     *artifactView `json:"artifact"`
	SHA256       *string       `json:"sha256"`
	DeployedAt   *string       `json:"deployed_at"`
	DeployedBy   *string       `json:"deployed_by"`
	Previous     *previousView `json:"previous"`
	LastFailure  *failureView  `json:"last_failure"`
}

// previousView is the release in service before the current one.
type previousView struct {
	DeploymentID string       `json:"deployment_id"`
	Artifact     artifactView `json:"artifact"`
	SHA256       *string      `json:"sha256"`
	DeployedAt   string       `json:"deployed_at"`
	DeployedBy   *string      `json:"deployed_by"`
}

// failureView is the last failure of an environment, as the status JSON
// would spell it.
type failureView struct {
	DeploymentID string  `json:"deployment_id"`
	Step         *string `json:"step"`
	Error        *string `json:"error"`
	FinishedAt   string  `json:"finished_at"`
	// Rollback is completed, failed, not_needed, disabled or running; null
	// when the deploy ended before it was decided.
	Rollback *string `json:"rollback"`
}

func (a *app) inventoryListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "inventory",
		Short: "Show the release in service, the one before and the last failure of every application and environment",
		Long: `Show, for every application and environment, the release in service (version, deploy,
digest, when and by whom), the release in service before it (PREVIOUS, what a rollback
goes back to) and the last deploy there that failed: the step that failed,
when, and the outcome of its automatic rollback. An environment where every deploy
failed has a last failure and no release in service ("-" in the table, null in JSON).`,
		Example: `  manent inventory
  manent inventory -o json | jq '.[] | select(.last_failure != null)'`,
		Args: noArgs,
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			entries, err := a.client().Inventory(cmd.Context())
			if err != nil {
				return err
			}
			return a.emit(toInventoryViews(entries), func(w io.Writer) error { return inventoryTable(w, entries) })
		}),
	}
}

func toInventoryViews(entries []client.InventoryEntry) []inventoryView {
	out := make([]inventoryView, 0, len(entries))
	for _, e := range entries {
		v := inventoryView{Tenant: e.Tenant, Application: e.Application, Environment: e.Environment,
			LastFailure: toFailureView(e.LastFailure)}
		if e.DeploymentId != "" {
			art := toArtifactView(e.Artifact, "")
			art.SHA256 = ""
			at := timestamp(e.DeployedAt)
			v.DeploymentID, v.Artifact, v.DeployedAt = &e.DeploymentId, &art, &at
			v.SHA256, v.DeployedBy = nonEmpty(e.Sha256), nonEmpty(e.DeployedBy)
			v.Previous = toPreviousView(e.Previous)
		}
		out = append(out, v)
	}
	return out
}

func toPreviousView(p *client.PreviousRelease) *previousView {
	if p == nil {
		return nil
	}
	art := toArtifactView(p.Artifact, "")
	art.SHA256 = ""
	return &previousView{DeploymentID: p.DeploymentId, Artifact: art, SHA256: nonEmpty(p.Sha256),
		DeployedAt: timestamp(p.DeployedAt), DeployedBy: nonEmpty(p.DeployedBy)}
}

func toFailureView(f *client.LastFailure) *failureView {
	if f == nil {
		return nil
	}
	v := &failureView{DeploymentID: f.DeploymentId, Step: nonEmpty(f.Step), Error: nonEmpty(f.Error),
		FinishedAt: timestamp(f.FinishedAt)}
	if f.Rollback != "" {
		v.Rollback = nonEmpty(rollbackWord(f.Rollback))
	}
	return v
}

// nonEmpty is nil for "", which JSON shows as null.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func inventoryTable(w io.Writer, entries []client.InventoryEntry) error {
	tw := newTable(w)
	row(tw, "TENANT", "APPLICATION", "ENVIRONMENT", "VERSION", "DEPLOYMENT", "SHA256", "DEPLOYED", "BY",
		"PREVIOUS", "LAST FAILURE", "STEP", "FAILED", "ROLLBACK")
	for _, e := range entries {
		previous, failed, step, at, rollback := "", "", "", "", ""
		if p := e.Previous; p != nil {
			previous = p.Artifact.Version
		}
		if f := e.LastFailure; f != nil {
			failed, step, at = f.DeploymentId, f.Step, timestamp(f.FinishedAt)
			if f.Rollback != "" {
				rollback = rollbackWord(f.Rollback)
			}
		}
		// Without a release in service the artifact and times are zero
		// values: the cells show "-".
		row(tw, e.Tenant, e.Application, e.Environment, e.Artifact.Version, e.DeploymentId,
			shortSHA(e.Sha256), timestamp(e.DeployedAt), e.DeployedBy, previous, failed, step, at, rollback)
	}
	return tw.Flush()
}
