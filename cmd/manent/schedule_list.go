package main

import (
	"io"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

func (a *app) scheduleListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the recurring schedules you may read",
		Long: `List the recurring schedules you may read, by name: what each deploys (tenant,
application, environment), its cron expression and time zone, its next tick (UTC)
the deploy its last tick started, and why the last tick started none (LAST ERROR:
its deploy ID was taken by a deploy the schedule did not start).`,
		Example: `  manent schedule list
  manent schedule list -o json`,
		Args: noArgs,
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			ss, err := a.client().Schedules(cmd.Context())
			if err != nil {
				return err
			}
			if ss == nil {
				ss = []client.ScheduleDetail{}
			}
			return a.emit(toScheduleViews(ss), func(w io.Writer) error {
				tw := newTable(w)
				row(tw, "NAME", "DEPLOYMENT", "CRON", "TIMEZONE", "NEXT TICK", "LAST DEPLOYMENT", "LAST ERROR")
				for i := range ss {
					s := &ss[i]
					row(tw, s.Name, s.Tenant+"/"+s.Application+"/"+s.Environment, s.Cron, s.Timezone, nextTick(s),
						s.LastDeployment, s.LastError)
				}
				return tw.Flush()
			})
		}),
	}
}
