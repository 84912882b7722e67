package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

func (a *app) deploymentPromoteCmd() *cobra.Command {
	var (
		to, id  string
		noWait  bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "promote ID --to ENV",
		Short: "Deploy what a deploy that succeeded deployed to another environment",
		Long: `Submit a new deploy of the artifact (pinned to the digest ID downloaded) and
descriptor of the deploy ID in the environment --to of the same application,
without ID's after and deployment imports, then follow it like deploy. The
promotion is a submission of its own: it needs deployment.submit on --to and
goes through every check (environment configuration, freeze, mandatory
promotion, approvals). ID must have succeeded.`,
		Example: `  manent promote hello-staging-b2d1de04 --to prod
  manent promote hello-staging-b2d1de04 --to prod --id hello-prod-1.1.0 --no-wait -o json`,
		Args: exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return &usageError{err: fmt.Errorf("--to is required: the environment to promote %s to", args[0])}
			}
			return a.rerunAndFollow(cmd.Context(), noWait, timeout, func(ctx context.Context, c *client.Client) (*client.DeploymentDetail, error) {
				d, err := c.Promote(ctx, args[0], to, id)
				if err == nil {
					a.progressf("submitted promotion %s of %s to %s/%s (%s)", d.Id, args[0], d.Application, d.Environment, d.Artifact.Version)
				}
				return d, err
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&to, "to", "", "the environment to promote to (required)")
	f.StringVar(&id, "id", "", "the ID of the new deploy (default: generated)")
	f.BoolVar(&noWait, "no-wait", false, "return once the promotion is accepted")
	f.DurationVar(&timeout, "timeout", 0, "stop following after this long and exit 124 (0: no limit)")
	return cmd
}

// rerunAndFollow submits a deploy made from another with submit, prints its
// ID (table) or its status (json, yaml), then follows it like deploy unless
// noWait, with deploy's GitHub Actions outputs.
func (a *app) rerunAndFollow(ctx context.Context, noWait bool, timeout time.Duration,
	submit func(context.Context, *client.Client) (*client.DeploymentDetail, error)) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	c := a.client()
	d, err := submit(ctx, c)
	if err != nil {
		return err
	}
	if a.format == formatTable {
		if _, err := fmt.Fprintln(a.stdout, d.Id); err != nil {
			return err
		}
	}
	if noWait {
		a.publish(d.Id, string(d.State), d.Status)
		if a.format != formatTable {
			return a.emit(d.Status, nil)
		}
		return nil
	}
	last, err := a.followDeploy(ctx, c, d.Id, d, time.Time{})
	// As deploy does: the final status, or the last one seen before the --timeout.
	if last != nil && (err == nil || errors.Is(err, context.DeadlineExceeded)) {
		a.publish(last.Id, string(last.State), last.Status)
		if a.format != formatTable {
			if eerr := a.emit(last.Status, nil); eerr != nil {
				return eerr
			}
		}
	}
	return followOutcome(d.Id, last, err, timeout)
}
