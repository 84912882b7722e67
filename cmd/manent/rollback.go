package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

func (a *app) rollbackCmd() *cobra.Command {
	var (
		to, tenant string
		noWait     bool
		timeout    time.Duration
	)
	cmd := &cobra.Command{
		Use:   "rollback APP ENV",
		Short: "Redeploy the previous release in service of an environment",
		Long: `Submit a new deploy of the previous release in service of APP in ENV (PREVIOUS
of manent inventory: the last deploy that went in service there before the
current one and succeeded), or of the deploy --to, through the normal
pipeline, pinned to the digest that release downloaded, then follow it like
deploy. Needs deployment.rollback. Artifact types that cannot be rolled back
(migration) are refused.`,
		Example: `  manent rollback shop-api prod
  manent rollback shop-api prod --to shop-api-2.3.0-prod`,
		Args: exactArgs("APP", "ENV"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			c := a.client()
			d, err := c.Rollback(ctx, tenant, args[0], args[1], to)
			if err != nil {
				return err
			}
			if a.format == formatTable {
				if _, err := fmt.Fprintln(a.stdout, d.Id); err != nil {
					return err
				}
			}
			a.progressf("submitted rollback %s of %s/%s to %s", d.Id, d.Application, d.Environment, d.Artifact.Version)
			if noWait {
				if a.format != formatTable {
					return a.emit(d.Status, nil)
				}
				return nil
			}
			last, err := a.followDeploy(ctx, c, d.Id, d, time.Time{})
			if last != nil && err == nil && a.format != formatTable {
				if eerr := a.emit(last.Status, nil); eerr != nil {
					return eerr
				}
			}
			return followOutcome(d.Id, last, err, timeout)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&to, "to", "", "the deploy to roll back to (default: the release before the one in service, PREVIOUS of manent inventory)")
	f.StringVar(&tenant, "tenant", "", "tenant (default: the server's)")
	f.BoolVar(&noWait, "no-wait", false, "return once the rollback is accepted")
	f.DurationVar(&timeout, "timeout", 0, "stop following after this long and exit 124 (0: no limit)")
	return cmd
}
