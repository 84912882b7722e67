package main

import (
	"io"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

// inventoryView is one release in service in JSON and YAML.
type inventoryView struct {
	Tenant       string       `json:"tenant"`
	Application  string       `json:"application"`
	Environment  string       `json:"environment"`
	DeploymentID string       `json:"deployment_id"`
	Artifact     artifactView `json:"artifact"`
	SHA256       string       `json:"sha256"`
	DeployedAt   string       `json:"deployed_at"`
	DeployedBy   string       `json:"deployed_by"`
}

func (a *app) inventoryListCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "inventory",
		Short:   "Show the release in service of every application and environment",
		Example: `  manent inventory -o json`,
		Args:    noArgs,
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
		art := toArtifactView(e.Artifact, "")
		art.SHA256 = ""
		out = append(out, inventoryView{Tenant: e.Tenant, Application: e.Application, Environment: e.Environment,
			DeploymentID: e.DeploymentId, Artifact: art, SHA256: e.Sha256,
			DeployedAt: timestamp(e.DeployedAt), DeployedBy: e.DeployedBy})
	}
	return out
}

func inventoryTable(w io.Writer, entries []client.InventoryEntry) error {
	tw := newTable(w)
	row(tw, "TENANT", "APPLICATION", "ENVIRONMENT", "VERSION", "DEPLOYMENT", "SHA256", "DEPLOYED", "BY")
	for _, e := range entries {
		row(tw, e.Tenant, e.Application, e.Environment, e.Artifact.Version, e.DeploymentId,
			shortSHA(e.Sha256), timestamp(e.DeployedAt), e.DeployedBy)
	}
	return tw.Flush()
}
