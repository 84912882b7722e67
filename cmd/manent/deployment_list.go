package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

// listFlags are the filters of list.
type listFlags struct {
	tenant, application, environment, requester string
	states                                      []string
	since                                       string
	limit                                       int
}

func (a *app) deploymentListCmd() *cobra.Command {
	var lf listFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List deploys, newest first",
		Long: `List the deploys you may read, newest first, filtered by the flags. Pages are
followed under the hood up to --limit. With -o json|yaml each deploy is printed as
its status JSON.`,
		Example: `  manent list --environment production --state ERROR --since 7d
  manent list --application hello --limit 200 -o json`,
		Args: noArgs,
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			f, err := lf.filter(a.now())
			if err != nil {
				return &usageError{err: err}
			}
			items, err := a.client().Deployments(cmd.Context(), f, lf.limit)
			if err != nil {
				return err
			}
			return a.emit(statuses(items), func(w io.Writer) error { return summaryTable(w, items) })
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&lf.tenant, "tenant", "", "only this tenant")
	fl.StringVar(&lf.application, "application", "", "only this application")
	fl.StringVar(&lf.environment, "environment", "", "only this environment")
	fl.StringSliceVar(&lf.states, "state", nil, "only these states (repeatable or comma-separated: --state ERROR,CANCELLED)")
	fl.StringVar(&lf.requester, "requester", "", "only deploys requested by this identity (token:ci, oidc:alice)")
	fl.StringVar(&lf.since, "since", "", "only deploys created in this past duration (90m, 24h, 7d)")
	fl.IntVar(&lf.limit, "limit", 50, "at most this many deploys (0: all)")
	return cmd
}

func (lf listFlags) filter(now time.Time) (client.ListFilter, error) {
	f := client.ListFilter{Tenant: lf.tenant, Application: lf.application, Environment: lf.environment, Requester: lf.requester}
	for _, s := range lf.states {
		st := client.DeploymentState(strings.ToUpper(strings.TrimSpace(s)))
		if !slices.Contains(client.AllDeploymentState, st) {
			return f, fmt.Errorf("unknown state %q (one of %s)", s, stateNames())
		}
		f.States = append(f.States, st)
	}
	if lf.since != "" {
		d, err := parseSince(lf.since)
		if err != nil {
			return f, err
		}
		t := now.Add(-d).UTC()
		f.CreatedAfter = &t
	}
	if lf.limit < 0 {
		return f, fmt.Errorf("--limit must be 0 or more")
	}
	return f, nil
}

// parseSince reads a Go duration, or a number of days ("7d").
func parseSince(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err == nil && days > 0 {
			return time.Duration(days) * 24 * time.Hour, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("--since %q: want a positive duration such as 90m, 24h or 7d", s)
	}
	return d, nil
}

func stateNames() string {
	names := make([]string, len(client.AllDeploymentState))
	for i, s := range client.AllDeploymentState {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// statuses is the JSON and YAML form of a list: the status JSON of each.
func statuses(items []client.DeploymentSummary) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(items))
	for _, d := range items {
		out = append(out, d.Status)
	}
	return out
}

func summaryTable(w io.Writer, items []client.DeploymentSummary) error {
	if len(items) == 0 {
		_, err := fmt.Fprintln(w, "No deploys.")
		return err
	}
	tw := newTable(w)
	row(tw, "ID", "DEPLOYMENT", "STATE", "VERSION", "REQUESTER", "CREATED", "DURATION")
	for _, d := range items {
		state := string(d.State)
		if d.CurrentStep != "" && !client.Terminal(d.State) {
			state += " (" + d.CurrentStep + ")"
		}
		if d.DryRun {
			state += " [dry run]"
		}
		row(tw, d.Id, d.Tenant+"/"+d.Application+"/"+d.Environment, state, d.Artifact.Version,
			d.Requester, timestamp(d.CreatedAt), span(d.StartedAt, d.FinishedAt))
	}
	return tw.Flush()
}
