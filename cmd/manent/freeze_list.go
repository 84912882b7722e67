package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

// freezeCalendarView is the freeze calendar in JSON and YAML.
type freezeCalendarView struct {
	Tenant      string             `json:"tenant,omitempty"`
	Application string             `json:"application"`
	Environment string             `json:"environment"`
	From        string             `json:"from"`
	To          string             `json:"to"`
	FrozenNow   *freezeWindowView  `json:"frozen_now"`
	Next        *freezeWindowView  `json:"next"`
	Windows     []freezeWindowView `json:"windows"`
}

type freezeWindowView struct {
	Rule      string `json:"rule"`
	Start     string `json:"start"`
	End       string `json:"end"`
	Recurring bool   `json:"recurring"`
	Cron      string `json:"cron,omitempty"`
	TimeZone  string `json:"timezone,omitempty"`
}

func (a *app) freezeListCmd() *cobra.Command {
	var tenant string
	var days int
	cmd := &cobra.Command{
		Use:   "freezes APPLICATION ENVIRONMENT",
		Short: "Show the freeze calendar of an environment: frozen now, the next freeze, the windows ahead",
		Example: `  manent freezes hello prod
  manent freezes hello prod --days 90 -o json`,
		Args: exactArgs("APPLICATION", "ENVIRONMENT"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if days < 1 || days > 90 {
				return &usageError{err: fmt.Errorf("--days must be between 1 and 90")}
			}
			cal, err := a.client().FreezeCalendar(cmd.Context(), tenant, args[0], args[1], days)
			if err != nil {
				return err
			}
			view := toFreezeCalendarView(tenant, args[0], args[1], cal)
			return a.emit(view, func(w io.Writer) error { return freezeTable(w, view) })
		}),
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "tenant (default: the server's default tenant)")
	cmd.Flags().IntVar(&days, "days", 30, "how many days ahead, 1 to 90")
	return cmd
}

func toFreezeWindowView(w *client.FreezeWindowDetail) *freezeWindowView {
	if w == nil {
		return nil
	}
	return &freezeWindowView{Rule: w.Rule, Start: timestamp(w.Start), End: timestamp(w.End), Recurring: w.Recurring, Cron: w.Cron, TimeZone: w.TimeZone}
}

func toFreezeCalendarView(tenant, application, environment string, c *client.FreezeCalendar) freezeCalendarView {
	v := freezeCalendarView{Tenant: tenant, Application: application, Environment: environment,
		From: timestamp(c.From), To: timestamp(c.To),
		FrozenNow: toFreezeWindowView(c.FrozenNow), Next: toFreezeWindowView(c.Next), Windows: make([]freezeWindowView, 0, len(c.Windows))}
	for i := range c.Windows {
		v.Windows = append(v.Windows, *toFreezeWindowView(&c.Windows[i]))
	}
	return v
}

func freezeTable(w io.Writer, v freezeCalendarView) error {
	var err error
	switch {
	case v.FrozenNow != nil:
		_, err = fmt.Fprintf(w, "Frozen now until %s, by %s.\n", v.FrozenNow.End, v.FrozenNow.Rule)
	case v.Next != nil:
		_, err = fmt.Fprintf(w, "Not frozen. Next freeze %s, by %s.\n", v.Next.Start, v.Next.Rule)
	default:
		_, err = fmt.Fprintf(w, "No freeze from %s to %s.\n", v.From, v.To)
	}
	if err != nil || len(v.Windows) == 0 {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	tw := newTable(w)
	row(tw, "WINDOW", "START", "END", "SCHEDULE")
	for _, x := range v.Windows {
		schedule := "one-off"
		if x.Recurring {
			schedule = x.Cron + " (" + x.TimeZone + ")"
		}
		row(tw, x.Rule, x.Start, x.End, schedule)
	}
	return tw.Flush()
}
