package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

func (a *app) deploymentGetCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status ID",
		Short: "Show a deploy: state, requester, artifact, times, rollout, steps and its automatic rollback",
		Long: `Show a deploy. A deploy with a rollout shows one line per wave (its state, the
targets done of its targets, what is left of its bake, its gate), the targets left
out and why a paused rollout waits. The table lists its steps (with the checkpoints
taken before the steps the automatic rollback can undo) and, when the deploy was
rolled back, the outcome
(completed, failed, disabled, ...) and each compensation. With -o json the status JSON
is printed exactly as the server gives it (the same as GET /api/v1/deployments/{id});
-o yaml prints the same in YAML.`,
		Example: `  manent status hello-20250102-1
  manent status hello-20250102-1 -o json | jq -r .state`,
		Args: exactArgs("ID"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			d, err := a.client().Deployment(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.emit(d.Status, func(w io.Writer) error { return statusTable(w, d, a.now()) })
		}),
	}
}

// statusTable prints d; now is the clock a bake under way is counted
// against.
func statusTable(w io.Writer, d *client.DeploymentDetail, now time.Time) error {
	tw := newTable(w)
	row(tw, "ID", d.Id)
	row(tw, "Deployment", d.Tenant+"/"+d.Application+"/"+d.Environment)
	state := string(d.State)
	if d.CurrentStep != "" && !client.Terminal(d.State) {
		state += " (step " + d.CurrentStep + ")"
	}
	if d.CancelRequested && !client.Terminal(d.State) {
		state += ", cancel requested"
	}
	row(tw, "State", state)
	if d.DryRun {
		row(tw, "Dry run", "yes")
	}
	row(tw, "Requester", d.Requester)
	if d.CancelledBy != "" {
		row(tw, "Cancelled by", d.CancelledBy)
	}
	row(tw, "Artifact", fmt.Sprintf("%s %s (%s) from %s", d.Artifact.Name, d.Artifact.Version, d.Artifact.Type, d.Artifact.Source))
	sha := d.Sha256
	if sha == "" {
		sha = d.Artifact.PinnedSha256
	}
	row(tw, "SHA-256", sha)
	if d.Release != "" {
		row(tw, "Release", d.Release)
	}
	if d.PromotedFrom != "" {
		row(tw, "Made from", d.PromotedFrom)
	}
	row(tw, "Created", timestamp(d.CreatedAt))
	if !d.StartAt.IsZero() {
		row(tw, "Starts at", timestamp(d.StartAt)+" (schedule.at)")
	}
	row(tw, "Started", timestamp(d.StartedAt))
	finished := timestamp(d.FinishedAt)
	if took := span(d.StartedAt, d.FinishedAt); took != "" {
		finished += " (" + took + ")"
	}
	row(tw, "Finished", finished)
	if d.Error != "" {
		row(tw, "Error", d.Error)
	}
	rollbackRow(tw, d)
	governanceRows(tw, d)
	if a := d.After; a != nil {
		afterRows(tw, a)
	}
	if len(d.Dependents) > 0 {
		row(tw, "Waited on by", dependencyList(d.Dependents))
	}
	if a := d.Approval; a != nil {
		approvalRows(tw, a)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if a := d.Approval; a != nil && len(a.Approvals) > 0 {
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
		if err := answersTable(w, a.Approvals); err != nil {
			return err
		}
	}
	if len(d.Exports) > 0 {
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
		if err := exportsTable(w, d.Exports); err != nil {
			return err
		}
	}
	rollout, err := statusRollout(d.Status)
	if err != nil {
		return err
	}
	if rollout != nil {
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
		if err := rolloutTable(w, rollout, now); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	if err := stepsTable(w, d.Steps); err != nil {
		return err
	}
	if r := d.Rollback; r != nil && len(r.Steps) > 0 {
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
		return compensationsTable(w, r.Steps)
	}
	return nil
}

// rollbackRow adds the outcome of the automatic rollback, spelt as the
// status JSON spells it; a deploy that succeeded and needed none says
// nothing about it.
func rollbackRow(tw *tabwriter.Writer, d *client.DeploymentDetail) {
	r := d.Rollback
	if r == nil || (r.State == client.RollbackStateNotNeeded && len(r.Steps) == 0 && d.State == client.DeploymentStateSuccess) {
		return
	}
	summary := rollbackWord(r.State)
	switch n := len(r.Steps); {
	case r.State == client.RollbackStateFailed && n > 0:
		summary += " at " + r.Steps[n-1].Name
	case n == 1:
		summary += ", 1 compensation"
	case n > 1:
		summary += fmt.Sprintf(", %d compensations", n)
	}
	row(tw, "Rollback", summary)
}

// rollbackWord is a rollback state as the status JSON and the docs spell
// it: completed, failed, not_needed, disabled, running.
func rollbackWord(s client.RollbackState) string {
	return strings.ToLower(string(s))
}

// compensationsTable lists what the automatic rollback ran, in order.
func compensationsTable(w io.Writer, steps []client.StepDetail) error {
	tw := newTable(w)
	row(tw, "COMPENSATION", "STATE", "ATTEMPTS", "STARTED", "DURATION", "ERROR")
	for _, s := range steps {
		row(tw, s.Name, string(s.State), fmt.Sprint(s.Attempts), timestamp(s.StartedAt), stepDuration(s), s.Error)
	}
	return tw.Flush()
}

// exportsTable lists the exports of a succeeded deploy; a targets export
// shows its hosts (-o json gives the whole targets).
func exportsTable(w io.Writer, exports []client.Export) error {
	tw := newTable(w)
	row(tw, "EXPORT", "FORMAT", "VALUE")
	for _, e := range exports {
		format := e.Format
		if e.Public {
			format += ", public"
		}
		row(tw, e.Name, format, exportValue(e))
	}
	return tw.Flush()
}

// exportValue is one line for a table: the hosts of a targets export, a
// string with its line breaks escaped so the columns hold.
func exportValue(e client.Export) string {
	if e.Format != deploy.ExportTargets {
		return strings.NewReplacer("\r", `\r`, "\n", `\n`, "\t", `\t`).Replace(e.Value)
	}
	var targets []json.RawMessage
	if json.Unmarshal([]byte(e.Value), &targets) != nil {
		return e.Value
	}
	hosts := make([]string, 0, len(targets))
	for _, raw := range targets {
		var host string
		if json.Unmarshal(raw, &host) == nil {
			hosts = append(hosts, host)
			continue
		}
		var t struct {
			Host string `json:"host"`
			Port int    `json:"port"`
			User string `json:"user"`
		}
		if json.Unmarshal(raw, &t) != nil {
			return e.Value
		}
		h := t.Host
		if t.User != "" {
			h = t.User + "@" + h
		}
		if t.Port != 0 {
			h += fmt.Sprintf(":%d", t.Port)
		}
		hosts = append(hosts, h)
	}
	return strings.Join(hosts, ", ")
}

// governanceRows add the governance decision as validate prints it, and the
// change ticket once the change:open step opened it.
func governanceRows(tw *tabwriter.Writer, d *client.DeploymentDetail) {
	dec := d.Decision
	if dec.Rule != "" || len(dec.Requires) > 0 {
		row(tw, "Governance", "rules "+dec.Rule)
		if len(dec.Requires) > 0 {
			row(tw, "Requires", strings.Join(dec.Requires, ", "))
		}
		if dec.Reason != "" {
			row(tw, "Decision", dec.Reason)
		}
	}
	if t := changeTicket(d.Steps); t != "" {
		row(tw, "Change", t)
	}
}

// changeStep is the step that opens the change ticket; its output names it.
const changeStep = "change:open"

// changeTicket is the ticket as a person looks it up (its number when the
// ITSM gives one), the connector's ID and the connector; "" before it opened.
func changeTicket(steps []client.StepDetail) string {
	for _, s := range steps {
		if s.Name != changeStep {
			continue
		}
		out := keyValues(s.Output)
		id, number := out["ticket"], out["number"]
		label := number
		switch {
		case number == "":
			label = id
		case id != "" && id != number:
			label += " (" + id + ")"
		}
		if label != "" && out["connector"] != "" {
			label += " in " + out["connector"]
		}
		return label
	}
	return ""
}

// afterRows add the after section: the deploys waited for and their states.
func afterRows(tw *tabwriter.Writer, a *client.AfterDetail) {
	done := 0
	for _, dep := range a.Dependencies {
		if dep.State == client.DeploymentStateSuccess {
			done++
		}
	}
	summary := a.Status
	if a.Status == "waiting" {
		summary += fmt.Sprintf(" for %d of %d", len(a.Dependencies)-done, len(a.Dependencies))
	}
	if len(a.Dependencies) > 0 {
		summary += ": " + dependencyList(a.Dependencies)
	}
	if a.Reason != "" {
		summary += "; " + a.Reason
	}
	row(tw, "After", summary)
	if a.Status == "waiting" && !a.ExpiresAt.IsZero() {
		row(tw, "After expires", timestamp(a.ExpiresAt))
	}
}

// dependencyList is "ID (STATE), ..." for either end of an after.
func dependencyList(deps []client.Dependency) string {
	out := make([]string, len(deps))
	for i, dep := range deps {
		out[i] = dep.Id + " (" + dependencyState(dep) + ")"
	}
	return strings.Join(out, ", ")
}

// approvalRows add the approval section: where it stands, what is still
// required and until when. The status is printed as the server gives it
// (waiting, approved, rejected, expired, cancelled, ...).
func approvalRows(tw *tabwriter.Writer, a *client.ApprovalDetail) {
	summary := fmt.Sprintf("%s, %d of %d", a.Status, approvedCount(a), a.Required)
	if a.Status == "waiting" {
		summary += "; " + stillRequired(a)
	} else if len(a.Groups) > 0 {
		summary += " (groups: " + strings.Join(a.Groups, ", ") + ")"
	}
	row(tw, "Approval", summary)
	// The expiry matters only while the deploy waits, or as the reason it ended.
	switch a.Status {
	case "waiting":
		row(tw, "Expires", timestamp(a.ExpiresAt))
	case "expired":
		row(tw, "Expired", timestamp(a.ExpiresAt))
	}
}

// answersTable lists who answered, how and when.
func answersTable(w io.Writer, answers []client.Approval) error {
	tw := newTable(w)
	row(tw, "APPROVER", "ANSWER", "TIME", "COMMENT")
	for _, ap := range answers {
		answer := "approved"
		if !ap.Approved {
			answer = "rejected"
		}
		row(tw, ap.Identity, answer, timestamp(ap.Time), ap.Comment)
	}
	return tw.Flush()
}
