package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

func (a *app) activityListCmd() *cobra.Command {
	var watch bool
	cmd := &cobra.Command{
		Use:   "activity",
		Short: "Show what is running or waiting right now",
		Long: `Show the deploys running or waiting now. With --watch, print a line for every
change of a deploy you may read, live, until interrupted (JSON Lines of status JSON
with -o json).`,
		Example: `  manent activity
  manent activity --watch`,
		Args: noArgs,
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			c := a.client()
			if watch {
				return a.watchActivity(cmd.Context(), c)
			}
			items, err := c.Activity(cmd.Context(), 0)
			if err != nil {
				return err
			}
			return a.emit(statuses(items), func(w io.Writer) error { return summaryTable(w, items) })
		}),
	}
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "print every change live until interrupted")
	return cmd
}

func (a *app) watchActivity(ctx context.Context, c *client.Client) error {
	err := c.WatchActivity(ctx, func(e client.ActivityEvent) error {
		d := e.Deployment
		switch a.format {
		case formatJSON:
			return writeJSONLine(a.stdout, d.Status)
		case formatYAML:
			return writeYAML(a.stdout, []any{d.Status})
		}
		step := ""
		if d.CurrentStep != "" && !client.Terminal(d.State) {
			step = " step " + d.CurrentStep
		}
		_, err := fmt.Fprintln(a.stdout, deploy.EscapeText(fmt.Sprintf("%s %s %s/%s/%s %s%s", timestamp(a.now()), d.Id,
			d.Tenant, d.Application, d.Environment, d.State, step)))
		return err
	}, client.OnReconnect(func(attempt int, err error) {
		if attempt == 1 || attempt%10 == 0 {
			a.progressf("lost the connection to %s (%s); reconnecting (attempt %d)", c.Server(), reason(err), attempt)
		}
	}))
	if errors.Is(err, context.Canceled) {
		return nil // interrupted on purpose: the normal end of a watch
	}
	return err
}
