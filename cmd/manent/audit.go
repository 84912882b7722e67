package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

// auditFlags are the filters of audit.
type auditFlags struct {
	tenant, application, environment, actor, action string
	since                                           string
	limit                                           int
}

func (a *app) auditCmd() *cobra.Command {
	var af auditFlags
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "List the audit log entries you may read, newest first",
		Long: `List the entries of the audit log you may read, newest first: who did what to which
deploy, release or schedule, and how it ended. An entry is shown to whoever may read
what it is about (deployment.read); an entry about no environment only to an admin
of every tenant. Pages are followed under the hood up to --limit.`,
		Example: `  manent audit --since 7d --action deployment.approve
  manent audit --application hello --environment prod --action 'deployment.rollout.*' -o json`,
		Args: noArgs,
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			f, err := af.filter(a.now())
			if err != nil {
				return &usageError{err: err}
			}
			items, err := a.client().Audit(cmd.Context(), f, af.limit)
			if err != nil {
				return err
			}
			return a.emit(toAuditViews(items), func(w io.Writer) error { return auditTable(w, items) })
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&af.tenant, "tenant", "", "only entries about this tenant")
	fl.StringVar(&af.application, "application", "", "only entries about this application")
	fl.StringVar(&af.environment, "environment", "", "only entries about this environment")
	fl.StringVar(&af.actor, "actor", "", "only entries of this identity (token:ci, oidc:alice)")
	fl.StringVar(&af.action, "action", "", "only this action, or the actions starting with a prefix ending in * (deployment.rollout.*)")
	fl.StringVar(&af.since, "since", "", "only entries of this past duration (90m, 24h, 7d)")
	fl.IntVar(&af.limit, "limit", 50, "at most this many entries (0: all)")
	return cmd
}

func (af auditFlags) filter(now time.Time) (client.AuditFilter, error) {
	f := client.AuditFilter{Tenant: af.tenant, Application: af.application, Environment: af.environment,
		Actor: af.actor, Action: strings.TrimSpace(af.action)}
	if af.since != "" {
		d, err := parseSince(af.since)
		if err != nil {
			return f, err
		}
		t := now.Add(-d).UTC()
		f.Since = &t
	}
	if af.limit < 0 {
		return f, fmt.Errorf("--limit must be 0 or more")
	}
	return f, nil
}

// auditView is the JSON and YAML form of an entry.
type auditView struct {
	ID        string              `json:"id"`
	Time      time.Time           `json:"time"`
	Actor     string              `json:"actor"`
	Action    string              `json:"action"`
	Target    string              `json:"target"`
	Details   json.RawMessage     `json:"details"`
	Resources []auditResourceView `json:"resources"`
}

type auditResourceView struct {
	Tenant      string `json:"tenant"`
	Application string `json:"application"`
	Environment string `json:"environment"`
}

func toAuditViews(items []client.AuditEntry) []auditView {
	out := make([]auditView, len(items))
	for i, e := range items {
		res := make([]auditResourceView, len(e.Resources))
		for j, r := range e.Resources {
			res[j] = auditResourceView{Tenant: r.Tenant, Application: r.Application, Environment: r.Environment}
		}
		details := e.Details
		if len(details) == 0 {
			details = json.RawMessage("{}")
		}
		out[i] = auditView{ID: e.Id, Time: e.Time.UTC(), Actor: e.Actor, Action: e.Action, Target: e.Target,
			Details: details, Resources: res}
	}
	return out
}

func auditTable(w io.Writer, items []client.AuditEntry) error {
	if len(items) == 0 {
		_, err := fmt.Fprintln(w, "No audit entries.")
		return err
	}
	tw := newTable(w)
	row(tw, "TIME", "ACTOR", "ACTION", "TARGET", "ABOUT", "OUTCOME")
	for _, e := range items {
		about := make([]string, len(e.Resources))
		for i, r := range e.Resources {
			about[i] = r.Tenant + "/" + r.Application + "/" + r.Environment
		}
		row(tw, timestamp(e.Time), e.Actor, e.Action, e.Target, strings.Join(about, ","), auditOutcome(e.Details))
	}
	return tw.Flush()
}

// auditOutcome is the short result an entry records, when it records one: its
// state or outcome, else its decision.
func auditOutcome(details json.RawMessage) string {
	var d map[string]any
	if json.Unmarshal(details, &d) != nil {
		return ""
	}
	for _, k := range []string{"state", "outcome", "decision"} {
		if s, ok := d[k].(string); ok {
			return s
		}
	}
	return ""
}
