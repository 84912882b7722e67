package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

func (a *app) deploymentRedeployCmd() *cobra.Command {
	var (
		id      string
		noWait  bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "redeploy ID",
		Short: "Deploy an ended deploy's descriptor again in its environment",
		Long: `Submit a new deploy of the artifact (pinned to the digest ID downloaded) and
descriptor of the ended deploy ID in its environment, without its after and
deployment imports, then follow it like deploy. A dry run is redeployed as a
dry run. Needs deployment.submit (deployment.dry-run for a dry run).`,
		Example: `  manent redeploy hello-prod-3f2a9c1e`,
		Args:    exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			return a.rerunAndFollow(cmd.Context(), noWait, timeout, func(ctx context.Context, c *client.Client) (*client.DeploymentDetail, error) {
				d, err := c.Redeploy(ctx, args[0], id)
				if err == nil {
					a.progressf("submitted redeploy %s of %s in %s/%s (%s)", d.Id, args[0], d.Application, d.Environment, d.Artifact.Version)
				}
				return d, err
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&id, "id", "", "the ID of the new deploy (default: generated)")
	f.BoolVar(&noWait, "no-wait", false, "return once the redeploy is accepted")
	f.DurationVar(&timeout, "timeout", 0, "stop following after this long and exit 124 (0: no limit)")
	return cmd
}
