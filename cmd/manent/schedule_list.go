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
and the deploy its last tick started.`,
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
				row(tw, "NAME", "DEPLOYMENT", "CRON", "TIMEZONE", "NEXT TICK", "LAST DEPLOYMENT")
				for i := range ss {
					s := &ss[i]
					row(tw, s.Name, s.Tenant+"/"+s.Application+"/"+s.Environment, s.Cron, s.Timezone, nextTick(s), s.LastDeployment)
				}
				return tw.Flush()
			})
		}),
	}
}
