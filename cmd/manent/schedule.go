package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

func (a *app) scheduleCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedule",
		Short: "List and delete recurring schedules (schedule.cron)",
		Long: `A descriptor with schedule.cron creates a recurring schedule (SCHEDULED) instead of
a deploy: every tick starts a deploy <schedule>@<yyyymmdd-hhmmss> (UTC) with the
plan captured at submission. Submitting the descriptor again (manent deploy -f)
updates the schedule of that name; manent schedule delete stops it.`,
	}
	cmd.AddCommand(a.scheduleListCmd(), a.scheduleDeleteCmd())
	return cmd
}

// scheduleWhen is the cron expression with its time zone, as read.
func scheduleWhen(s *client.ScheduleDetail) string {
	return fmt.Sprintf("%s in %s", s.Cron, s.Timezone)
}

// nextTick is the next tick, "pending" until the server has computed it
// (the schedule's workflow does, right after the submission).
func nextTick(s *client.ScheduleDetail) string {
	if s.NextTick == nil {
		return "pending"
	}
	return timestamp(*s.NextTick)
}
