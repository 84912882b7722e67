package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

func (a *app) deploymentValidateCmd() *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "validate -f FILE",
		Short: "Run every submission check and print the plan, enqueuing nothing",
		Long: `Run the checks of a submission (descriptor, permissions, sources, environment
configuration, governance) on the descriptor in FILE ("-" reads stdin), and print
the plan and the effective deploy. Nothing is stored or enqueued.

Exit codes: 0 valid, 2 invalid or refused (every problem is listed), 3 authentication
or permission, 4 server unreachable.`,
		Example: `  manent validate -f deploy.yml
  manent validate -f deploy.yml -o json`,
		Args: noArgs,
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			doc, err := a.readDescriptor(file)
			if err != nil {
				return err
			}
			res, err := a.client().Submit(cmd.Context(), doc, true)
			if err != nil {
				return a.invalid(err)
			}
			v := toValidateView(&res.Deployment)
			return a.emit(v, v.table)
		}),
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "descriptor file (YAML or JSON), - for stdin")
	_ = cmd.MarkFlagRequired("file")
	return cmd
}

// invalid prints a refusal as data too with -o json|yaml, so a tool reads
// the problems without parsing stderr; the exit code stays humanize's.
func (a *app) invalid(err error) error {
	var api *client.APIError
	if a.format == formatTable || !errors.As(err, &api) ||
		(api.Code != deploy.EINVALID && api.Code != deploy.EUNPROCESSABLE) {
		return err
	}
	fields := api.Fields
	if fields == nil {
		fields = []deploy.FieldError{}
	}
	if eerr := a.emit(invalidView{Valid: false, Code: string(api.Code), Message: api.Message, Errors: fields}, nil); eerr != nil {
		return eerr
	}
	return err
}

type invalidView struct {
	Valid   bool                `json:"valid"`
	Code    string              `json:"code"`
	Message string              `json:"message"`
	Errors  []deploy.FieldError `json:"errors"`
}

// validateView is what validate prints: the plan and the effective deploy,
// snake_case like the status JSON.
type validateView struct {
	Valid       bool              `json:"valid"`
	Tenant      string            `json:"tenant"`
	Application string            `json:"application"`
	Environment string            `json:"environment"`
	Requester   string            `json:"requester"`
	DryRun      bool              `json:"dry_run"`
	Artifact    artifactView      `json:"artifact"`
	Labels      map[string]string `json:"labels"`
	Plan        []plannedStepView `json:"plan"`
	// Rollout is the planned rollout; null for a deploy without one.
	Rollout    *rolloutPlanView `json:"rollout"`
	Effective  effectiveView    `json:"effective"`
	Governance governanceView   `json:"governance"`
}

type artifactView struct {
	Type    string `json:"type"`
	Name    string `json:"name"`
	Version string `json:"version"`
	Source  string `json:"source"`
	SHA256  string `json:"sha256,omitempty"`
}

// plannedStepView is a step of the plan; a custom step shows its type and
// spec_hash, what pipeline.custom.revoked_specs takes.
type plannedStepView struct {
	Name           string `json:"name"`
	Type           string `json:"type"`
	SpecHash       string `json:"spec_hash,omitempty"`
	MaxRetries     int    `json:"max_retries"`
	TimeoutSeconds int    `json:"timeout_seconds"`
	Mandatory      bool   `json:"mandatory"`
}

type targetView struct {
	Name string `json:"name"`
	Host string `json:"host,omitempty"`
	Port int    `json:"port,omitempty"`
	User string `json:"user,omitempty"`
	Path string `json:"path,omitempty"`
}

type effectiveView struct {
	Plugin         string            `json:"plugin"`
	Targets        []targetView      `json:"targets"`
	Params         map[string]string `json:"params"`
	HealthChecks   []string          `json:"health_checks"`
	SecretNames    []string          `json:"secret_names"`
	ConfigSource   string            `json:"config_source"`
	ConfigRevision string            `json:"config_revision"`
	Rollback       rollbackView      `json:"rollback"`
}

// rollbackView is the automatic rollback policy decided for the deploy,
// as the effective deploy of the status JSON spells it.
type rollbackView struct {
	Enabled bool     `json:"enabled"`
	On      []string `json:"on"`
}

// summary is the policy in a table: off, or on and the steps it covers.
func (r rollbackView) summary() string {
	switch {
	case !r.Enabled:
		return "off"
	case len(r.On) == 0:
		return "on"
	}
	return "on failure of " + strings.Join(r.On, ", ")
}

type governanceView struct {
	Rule     string   `json:"rule"`
	Requires []string `json:"requires"`
	Reason   string   `json:"reason"`
}

func keyValues(kvs []client.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func toArtifactView(a client.ArtifactDetail, sha string) artifactView {
	if sha == "" {
		sha = a.PinnedSha256
	}
	return artifactView{Type: a.Type, Name: a.Name, Version: a.Version, Source: a.Source, SHA256: sha}
}

func toValidateView(d *client.SubmittedDeployment) validateView {
	v := validateView{
		Valid: true, Tenant: d.Tenant, Application: d.Application, Environment: d.Environment,
		Requester: d.Requester, DryRun: d.DryRun, Artifact: toArtifactView(d.Artifact, d.Sha256),
		Labels: keyValues(d.Labels), Plan: []plannedStepView{}, Rollout: toRolloutPlanView(d.Plan.Rollout),
		Effective: effectiveView{
			Plugin: d.Effective.Plugin, Targets: []targetView{}, Params: keyValues(d.Effective.Params),
			HealthChecks: nonNilStrings(d.Effective.HealthChecks), SecretNames: nonNilStrings(d.Effective.SecretNames),
			ConfigSource: d.Effective.ConfigSource, ConfigRevision: d.Effective.ConfigRevision,
			Rollback: rollbackView{Enabled: d.Effective.Rollback.Enabled, On: nonNilStrings(d.Effective.Rollback.On)},
		},
		Governance: governanceView{Rule: d.Decision.Rule, Requires: nonNilStrings(d.Decision.Requires), Reason: d.Decision.Reason},
	}
	for _, s := range d.Plan.Steps {
		v.Plan = append(v.Plan, plannedStepView{Name: s.Name, Type: s.Type, SpecHash: valueOf(s.SpecHash), MaxRetries: s.MaxRetries,
			TimeoutSeconds: s.TimeoutSeconds, Mandatory: s.Mandatory})
	}
	for _, t := range d.Effective.Targets {
		v.Effective.Targets = append(v.Effective.Targets, targetView{Name: t.Name, Host: t.Host, Port: t.Port, User: t.User, Path: t.Path})
	}
	return v
}

func (v validateView) table(w io.Writer) error {
	if _, err := fmt.Fprint(w, "The descriptor is valid: nothing was enqueued.\n\n"); err != nil {
		return err
	}
	tw := newTable(w)
	row(tw, "Deployment", v.Tenant+"/"+v.Application+"/"+v.Environment)
	row(tw, "Requester", v.Requester)
	row(tw, "Artifact", fmt.Sprintf("%s %s (%s) from %s", v.Artifact.Name, v.Artifact.Version, v.Artifact.Type, v.Artifact.Source))
	if v.Artifact.SHA256 != "" {
		row(tw, "SHA-256", v.Artifact.SHA256)
	}
	if v.DryRun {
		row(tw, "Dry run", "yes")
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	if _, err := fmt.Fprint(w, "\nEffective deploy\n"); err != nil {
		return err
	}
	tw = newTable(w)
	row(tw, "  Plugin", v.Effective.Plugin)
	for i, t := range v.Effective.Targets {
		row(tw, pick(i == 0, "  Targets", ""), t.Name)
	}
	for i, k := range sortedKeys(v.Effective.Params) {
		row(tw, pick(i == 0, "  Params", ""), k+"="+v.Effective.Params[k])
	}
	for i, h := range v.Effective.HealthChecks {
		row(tw, pick(i == 0, "  Health checks", ""), h)
	}
	if len(v.Effective.SecretNames) > 0 {
		row(tw, "  Secrets", strings.Join(v.Effective.SecretNames, ", "))
	}
	if v.Effective.ConfigSource != "" {
		row(tw, "  Configuration", v.Effective.ConfigSource+" @ "+shortSHA(v.Effective.ConfigRevision))
	}
	row(tw, "  Rollback", v.Effective.Rollback.summary())
	if v.Governance.Rule != "" || len(v.Governance.Requires) > 0 {
		row(tw, "  Governance", "rules "+v.Governance.Rule)
		if len(v.Governance.Requires) > 0 {
			row(tw, "  Requires", strings.Join(v.Governance.Requires, ", "))
		}
		if v.Governance.Reason != "" {
			row(tw, "  Decision", v.Governance.Reason)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	if _, err := fmt.Fprint(w, "\nPlan\n"); err != nil {
		return err
	}
	tw = newTable(w)
	// The hash column only when a custom step has one: it is what
	// pipeline.custom.revoked_specs takes.
	custom := slices.ContainsFunc(v.Plan, func(s plannedStepView) bool { return s.SpecHash != "" })
	head := []string{"  #", "STEP", "TYPE", "RETRIES", "TIMEOUT", "MANDATORY"}
	if custom {
		head = append(head, "SPEC HASH")
	}
	row(tw, head...)
	for i, s := range v.Plan {
		cells := []string{fmt.Sprintf("  %d", i+1), s.Name, s.Type, fmt.Sprint(s.MaxRetries),
			seconds(s.TimeoutSeconds), pick(s.Mandatory, "yes", "no")}
		if custom {
			cells = append(cells, s.SpecHash)
		}
		row(tw, cells...)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if v.Rollout != nil {
		return v.Rollout.table(w)
	}
	return nil
}

// valueOf is *s, "" for nil.
func valueOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
