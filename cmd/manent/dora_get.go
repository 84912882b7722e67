package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

// doraView is the DORA report in JSON and YAML: durations in seconds, null
// when there is no sample, bands null when there is not enough data.
type doraView struct {
	From  string         `json:"from"`
	To    string         `json:"to"`
	Weeks []doraWeekView `json:"weeks"`
	Total doraFigures    `json:"total"`
}

type doraWeekView struct {
	Week  string `json:"week"`
	Start string `json:"start"`
	doraFigures
}

type doraFigures struct {
	DeploymentFrequency doraFrequencyView `json:"deployment_frequency"`
	LeadTime            doraMedianView    `json:"lead_time"`
	ChangeFailRate      doraRateView      `json:"change_fail_rate"`
	RecoveryTime        doraRecoveryView  `json:"failed_deployment_recovery_time"`
	ReworkRate          doraRateView      `json:"deployment_rework_rate"`
}

type doraFrequencyView struct {
	Deploys       int      `json:"deploys"`
	PerWeek       float64  `json:"per_week"`
	Band          string   `json:"band"`
	DeploymentIDs []string `json:"deployment_ids"`
}

type doraMedianView struct {
	Seconds       *float64 `json:"seconds"`
	Samples       int      `json:"samples"`
	EnoughData    bool     `json:"enough_data"`
	Band          *string  `json:"band"`
	DeploymentIDs []string `json:"deployment_ids"`
}

type doraRateView struct {
	Count         int      `json:"count"`
	Of            int      `json:"of"`
	Rate          float64  `json:"rate"`
	EnoughData    bool     `json:"enough_data"`
	Band          *string  `json:"band"`
	DeploymentIDs []string `json:"deployment_ids"`
}

type doraRecoveryView struct {
	doraMedianView
	Recoveries     []doraRecoveredView `json:"recoveries"`
	UnrecoveredIDs []string            `json:"unrecovered_ids"`
}

type doraRecoveredView struct {
	Failed      string  `json:"failed"`
	RecoveredBy string  `json:"recovered_by"`
	Seconds     float64 `json:"seconds"`
}

func (a *app) doraGetCmd() *cobra.Command {
	var q client.DoraQuery
	var from, to, window string
	cmd := &cobra.Command{
		Use:   "dora",
		Short: "Show the DORA metrics of the deploys you may read, week by week",
		Long: `Show the five DORA metrics (deployment frequency, lead time for changes, change
fail rate, failed deployment recovery time, deployment rework rate) in ISO weeks (UTC)
and in total, with their dora.dev bands. "n/a" marks a figure with not enough data.
-o json lists the deploys behind every figure.`,
		Example: `  manent dora
  manent dora --application shop --environment prod --from 2026-01-05 --to 2026-03-02
  manent dora -o json | jq '.total.change_fail_rate.deployment_ids'`,
		Args: noArgs,
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			var err error
			if q.From, err = parseDay("--from", from); err != nil {
				return err
			}
			if q.To, err = parseDay("--to", to); err != nil {
				return err
			}
			if window != "" {
				d, perr := time.ParseDuration(window)
				if perr != nil || d < time.Hour || d%time.Hour != 0 {
					return &usageError{err: fmt.Errorf("--window must be whole hours, such as 24h")}
				}
				q.FailureWindowHours = int(d / time.Hour)
			}
			rep, err := a.client().DoraMetrics(cmd.Context(), q)
			if err != nil {
				return err
			}
			view := toDoraView(rep)
			return a.emit(view, func(w io.Writer) error { return doraTable(w, view) })
		}),
	}
	f := cmd.Flags()
	f.StringVar(&q.Tenant, "tenant", "", "tenant (default: every tenant you may read)")
	f.StringVar(&q.Application, "application", "", "only this application")
	f.StringVar(&q.Environment, "environment", "", "only this environment")
	f.StringVar(&from, "from", "", "start of the range, YYYY-MM-DD (UTC) or RFC 3339 (default: 28 days before --to)")
	f.StringVar(&to, "to", "", "end of the range, excluded, YYYY-MM-DD (UTC) or RFC 3339 (default: now)")
	f.StringVar(&window, "window", "", "how long after a deploy a rollback or remediation marks it as failed (default 24h, at most 168h)")
	return cmd
}

// parseDay reads a day (UTC midnight) or an RFC 3339 time; nil for "".
func parseDay(flag, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	for _, layout := range []string{"2006-01-02", time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, &usageError{err: fmt.Errorf("%s must be YYYY-MM-DD or an RFC 3339 time, such as 2026-01-05T00:00:00Z", flag)}
}

func toDoraView(r *client.DoraReport) doraView {
	v := doraView{From: timestamp(r.From), To: timestamp(r.To), Weeks: make([]doraWeekView, len(r.Weeks)),
		Total: toDoraFigures(r.Total)}
	for i, w := range r.Weeks {
		v.Weeks[i] = doraWeekView{Week: fmt.Sprintf("%d-W%02d", w.Year, w.Week), Start: timestamp(w.Start),
			doraFigures: toDoraFigures(w.Figures)}
	}
	return v
}

func toDoraFigures(f client.DoraFiguresDetail) doraFigures {
	rec := f.RecoveryTime
	out := doraFigures{
		DeploymentFrequency: doraFrequencyView{Deploys: f.DeploymentFrequency.Deploys, PerWeek: f.DeploymentFrequency.PerWeek,
			Band: bandWord(&f.DeploymentFrequency.Band), DeploymentIDs: f.DeploymentFrequency.DeploymentIds},
		LeadTime: doraMedianView{Seconds: f.LeadTime.Seconds, Samples: f.LeadTime.Samples, EnoughData: f.LeadTime.EnoughData,
			Band: nonEmpty(bandWord(f.LeadTime.Band)), DeploymentIDs: f.LeadTime.DeploymentIds},
		ChangeFailRate: toDoraRate(f.ChangeFailRate.DoraRateDetail),
		RecoveryTime: doraRecoveryView{doraMedianView: doraMedianView{Seconds: rec.Seconds, Samples: rec.Samples,
			EnoughData: rec.EnoughData, Band: nonEmpty(bandWord(rec.Band)), DeploymentIDs: rec.DeploymentIds},
			Recoveries: make([]doraRecoveredView, len(rec.Recoveries)), UnrecoveredIDs: rec.UnrecoveredIds},
		ReworkRate: toDoraRate(f.ReworkRate.DoraRateDetail),
	}
	for i, r := range rec.Recoveries {
		out.RecoveryTime.Recoveries[i] = doraRecoveredView{Failed: r.FailedId, RecoveredBy: r.RecoveredById, Seconds: r.Seconds}
	}
	return out
}

func toDoraRate(r client.DoraRateDetail) doraRateView {
	return doraRateView{Count: r.Count, Of: r.Of, Rate: r.Rate, EnoughData: r.EnoughData, Band: nonEmpty(bandWord(r.Band)),
		DeploymentIDs: r.DeploymentIds}
}

// bandWord is the band in lower case, "" for none.
func bandWord(b *client.DoraBand) string {
	if b == nil {
		return ""
	}
	return strings.ToLower(string(*b))
}

func doraTable(w io.Writer, v doraView) error {
	tw := newTable(w)
	row(tw, "WEEK", "DEPLOYS", "LEAD TIME", "CHANGE FAIL RATE", "RECOVERY TIME", "UNRECOVERED", "REWORK RATE")
	line := func(name string, f doraFigures) {
		freq := f.DeploymentFrequency
		row(tw, name, withBand(strconv.Itoa(freq.Deploys), &freq.Band), medianCell(f.LeadTime), rateCell(f.ChangeFailRate),
			medianCell(f.RecoveryTime.doraMedianView), strconv.Itoa(len(f.RecoveryTime.UnrecoveredIDs)), rateCell(f.ReworkRate))
	}
	for _, wk := range v.Weeks {
		line(wk.Week, wk.doraFigures)
	}
	line("total", v.Total)
	return tw.Flush()
}

func withBand(s string, band *string) string {
	if band == nil || *band == "" {
		return s
	}
	return s + " (" + *band + ")"
}

// medianCell is the median with its band, "-" without samples, "n/a"
// below the threshold of samples.
func medianCell(m doraMedianView) string {
	switch {
	case m.Seconds == nil:
		return ""
	case !m.EnoughData:
		return "n/a"
	}
	return withBand(duration(time.Duration(*m.Seconds*float64(time.Second))), m.Band)
}

func rateCell(r doraRateView) string {
	switch {
	case r.Of == 0:
		return ""
	case !r.EnoughData:
		return "n/a"
	}
	return withBand(fmt.Sprintf("%.1f%% (%d/%d)", 100*r.Rate, r.Count, r.Of), r.Band)
}
