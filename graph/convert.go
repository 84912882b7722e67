package graph

import (
	"maps"
	"slices"
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

// The converters below are the only crossing from the domain to the GraphQL
// models: a field of deploy may change without changing the API.

func toModelDeployment(d *deploy.Deployment) *model.Deployment {
	labels := d.Effective.Labels
	if len(labels) == 0 {
		labels = d.Descriptor.Labels
	}
	st := deploy.NewStatus(d)
	now := time.Now()
	return &model.Deployment{
		ID:              d.ID,
		Tenant:          d.Tenant,
		Application:     d.Application,
		Environment:     d.Environment,
		State:           model.DeploymentState(d.State),
		Requester:       d.Requester,
		CreatedAt:       d.CreatedAt,
		StartedAt:       d.StartedAt,
		FinishedAt:      d.FinishedAt,
		UpdatedAt:       d.UpdatedAt,
		DryRun:          d.DryRun,
		Release:         optional(d.Release),
		Artifact:        toModelArtifact(d.Artifact),
		Sha256:          optional(d.SHA256),
		Labels:          toModelKeyValues(labels),
		Plan:            toModelPlan(d.Plan),
		Effective:       toModelEffective(d.Effective),
		Decision:        toModelDecision(d.Decision),
		CurrentStep:     optional(d.CurrentStep),
		Error:           optional(d.Error),
		CancelRequested: d.CancelRequested,
		CancelledBy:     optional(d.Canceller()),
		Steps:           toModelSteps(d, now),
		Rollout:         toModelRollout(st.Rollout),
		Rollback:        toModelRollback(d, st.Rollback, now),
		Callbacks:       toModelCallbacks(st.Callbacks),
		Status:          st,
		Approval:        toModelApproval(st.Approval),
		After:           toModelAfter(st.After),
		Dependents:      toModelDependencies(d.Dependents),
		Exports:         toModelExports(d.Exports),
		Imports:         toModelImports(&d.Descriptor),
		StartAt:         startAt(&d.Descriptor),
		PromotedFrom:    optional(d.PromotedFrom),
		DurationMs:      durationMs(d.StartedAt, d.FinishedAt, now),
		Source:          d,
	}
}

// durationMs is the time from start to end, or to now while running, in
// whole milliseconds.
func durationMs(start, end *time.Time, now time.Time) *float64 {
	if start == nil {
		return nil
	}
	until := now
	if end != nil {
		until = *end
	}
	ms := float64(until.Sub(*start).Milliseconds())
	return &ms
}

// startAt is the descriptor's schedule.at, the time a DELAYED deploy waits for.
func startAt(d *deploy.Descriptor) *time.Time {
	if d.Schedule == nil || d.Schedule.At == nil {
		return nil
	}
	at := d.Schedule.At.UTC()
	return &at
}

// toModelImports lists the descriptor's imports with the exports that
// targetsFrom and paramsFrom take from each: what a release's graph labels
// its edges with.
func toModelImports(d *deploy.Descriptor) []model.DeploymentImport {
	used := map[string][]string{}
	add := func(ref deploy.ImportRef) {
		if !slices.Contains(used[ref.Import], ref.Export) {
			used[ref.Import] = append(used[ref.Import], ref.Export)
		}
	}
	for _, ref := range d.Deploy.TargetsFrom {
		add(ref)
	}
	for _, ref := range d.Deploy.ParamsFrom {
		add(ref)
	}
	out := make([]model.DeploymentImport, 0, len(d.Imports))
	for _, name := range slices.Sorted(maps.Keys(d.Imports)) {
		imp := d.Imports[name]
		exports := used[name]
		slices.Sort(exports)
		if exports == nil {
			exports = []string{}
		}
		m := model.DeploymentImport{Name: name, DeploymentID: optional(imp.Deployment), Exports: exports}
		if c := imp.Current; c != nil {
			tenant := c.Tenant
			if tenant == "" {
				tenant = d.Tenant
			}
			env := c.Environment
			if env == "" {
				env = d.Environment
			}
			cur := tenant + "/" + c.Application + "/" + env
			m.Current = &cur
		}
		out = append(out, m)
	}
	return out
}

func toModelExports(es []deploy.Export) []model.Export {
	out := make([]model.Export, len(es))
	for i, e := range es {
		format := e.Format
		if format == "" {
			format = deploy.ExportString
		}
		out[i] = model.Export{Name: e.Name, Format: format, Value: e.Value, Public: e.Public}
	}
	slices.SortFunc(out, func(a, b model.Export) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func toModelAfter(a *deploy.AfterStatus) *model.AfterStatus {
	if a == nil {
		return nil
	}
	return &model.AfterStatus{
		Status: a.Status, ExpiresAt: a.ExpiresAt, Reason: optional(a.Reason),
		Dependencies: toModelDependencies(a.Dependencies),
	}
}

// toModelDependencies never returns nil: the lists are non-null in the
// schema. A deploy without a state is one removed by retention.
func toModelDependencies(deps []deploy.Dependency) []model.Dependency {
	out := make([]model.Dependency, len(deps))
	for i, dep := range deps {
		out[i] = model.Dependency{ID: dep.ID}
		if dep.State != "" {
			state := model.DeploymentState(dep.State)
			out[i].State = &state
		}
	}
	return out
}

func toModelDeployments(ds []deploy.Deployment) []model.Deployment {
	out := make([]model.Deployment, len(ds))
	for i := range ds {
		out[i] = *toModelDeployment(&ds[i])
	}
	return out
}

func toModelConnection(p deploy.Page) *model.DeploymentConnection {
	conn := &model.DeploymentConnection{
		Edges:    make([]model.DeploymentEdge, len(p.Items)),
		Nodes:    toModelDeployments(p.Items),
		PageInfo: &model.PageInfo{HasNextPage: p.HasNextPage, EndCursor: optional(p.EndCursor)},
	}
	for i := range conn.Nodes {
		conn.Edges[i] = model.DeploymentEdge{Cursor: p.Cursor(i), Node: &conn.Nodes[i]}
	}
	return conn
}

func toModelArtifact(a deploy.Artifact) *model.Artifact {
	return &model.Artifact{
		Type: a.Type, Name: a.Name, Version: a.Version, Source: deploy.RedactURL(a.Source),
		PinnedSha256: optional(a.SHA256),
	}
}

func toModelPlan(p deploy.Plan) *model.Plan {
	steps := make([]model.PlannedStep, len(p.Steps))
	for i, s := range p.Steps {
		steps[i] = model.PlannedStep{
			Name: s.Name, Type: s.Type, SpecHash: optional(s.SpecHash), MaxRetries: s.MaxRetries,
			TimeoutSeconds: int(s.Timeout / time.Second), Mandatory: s.Mandatory,
		}
	}
	return &model.Plan{Steps: steps, Rollout: toModelRolloutPlan(p.Rollout)}
}

func toModelEffective(e deploy.Effective) *model.EffectiveDeploy {
	out := &model.EffectiveDeploy{
		Plugin:         e.Plugin,
		Targets:        make([]model.Target, len(e.Targets)),
		Params:         toModelKeyValues(e.Params),
		HealthChecks:   make([]string, len(e.Health)),
		SecretNames:    make([]string, len(e.Secrets)),
		ConfigSource:   optional(e.ConfigSource),
		ConfigRevision: optional(e.ConfigRevision),
		Rollback:       toModelRollbackPolicy(e.Rollback),
	}
	for i, t := range e.Targets {
		out.Targets[i] = toModelTarget(t)
	}
	// A health check's query or user info may hold a token: readers see
	// where it goes, not how it signs in.
	for i, h := range e.Health {
		out.HealthChecks[i] = deploy.RedactURL(h.URL)
	}
	// Only the names: a reference (file path, variable) is configuration the
	// reader of a deploy has no need for.
	for i, s := range e.Secrets {
		out.SecretNames[i] = s.Name
	}
	return out
}

func toModelTarget(t deploy.Target) model.Target {
	out := model.Target{
		Host: optional(t.Host), User: optional(t.User), Path: optional(t.Path), Name: t.Name(),
	}
	if t.Port != 0 {
		port := t.Port
		out.Port = &port
	}
	return out
}

func toModelDecision(d deploy.Decision) *model.GovernanceDecision {
	requires := d.Requires
	if requires == nil {
		requires = []string{}
	}
	out := &model.GovernanceDecision{Rule: optional(d.Rule), Requires: requires, Reason: optional(d.Reason)}
	if a := d.Approvals; a != nil {
		count := a.Count
		out.ApprovalsRequired = &count
		out.ApprovalGroups = nonNilStrings(a.Groups)
	}
	if d.Change != nil {
		out.Change = optional(d.Change.Connector)
	}
	if f := d.Freeze; f != nil && f.Overridden {
		out.Freeze = optional(f.Window)
	}
	if p := d.Promotion; p != nil {
		out.PromotionFrom = optional(p.From)
		out.PromotionSatisfiedBy = optional(p.SatisfiedBy)
	}
	return out
}

// toModelSteps lists what the status shows as steps, in its order
// (deploy.Deployment.Timeline: checkpoints before their steps, PENDING
// placeholders for the planned steps not begun); the compensations are in
// the rollback.
func toModelSteps(d *deploy.Deployment, now time.Time) []model.Step {
	timeline := d.Timeline()
	out := make([]model.Step, len(timeline))
	for i, s := range timeline {
		out[i] = toModelStep(s, now)
	}
	return out
}

func toModelStep(s deploy.Step, now time.Time) model.Step {
	key := s.Key()
	out := model.Step{
		Name: key.Name(), Kind: toModelStepKind(key.Kind), Pass: key.Pass, Batch: key.Batch, Target: optional(key.Target),
		Position: s.Position, Type: s.Type, State: model.StepState(s.State),
		Attempts: s.Attempts, StartedAt: s.StartedAt, FinishedAt: s.FinishedAt,
		Output: toModelKeyValues(s.Output), Error: optional(s.Error),
	}
	if s.StartedAt != nil {
		end := now
		if s.FinishedAt != nil {
			end = *s.FinishedAt
		} else if s.State.Terminal() {
			end = *s.StartedAt
		}
		ms := int(end.Sub(*s.StartedAt).Milliseconds())
		out.DurationMs = &ms
	}
	return out
}

func toModelLogLines(lines []deploy.LogLine) []model.LogLine {
	out := make([]model.LogLine, len(lines))
	for i, l := range lines {
		out[i] = model.LogLine{
			Seq: int(l.Seq), Time: l.Time, Step: optional(l.Step), Level: l.Level, Message: l.Message,
		}
	}
	return out
}

// toModelInventory leaves the release fields null for an environment with
// nothing in service (only a last failure).
func toModelInventory(entries []deploy.InventoryEntry) []model.InventoryEntry {
	out := make([]model.InventoryEntry, len(entries))
	for i, e := range entries {
		out[i] = model.InventoryEntry{
			Tenant: e.Tenant, Application: e.Application, Environment: e.Environment,
			LastFailure: toModelLastFailure(e.LastFailure),
		}
		if e.DeploymentID == "" {
			continue
		}
		at := e.DeployedAt
		out[i].DeploymentID = &e.DeploymentID
		out[i].Artifact = toModelArtifact(e.Artifact)
		out[i].Sha256 = optional(e.SHA256)
		out[i].DeployedAt = &at
		out[i].DeployedBy = optional(e.DeployedBy)
		if p := e.Previous; p != nil {
			out[i].Previous = &model.PreviousRelease{DeploymentID: p.DeploymentID, Artifact: toModelArtifact(p.Artifact),
				Sha256: optional(p.SHA256), DeployedAt: p.DeployedAt, DeployedBy: optional(p.DeployedBy),
				Of: deploy.Resource{Tenant: e.Tenant, Application: e.Application, Environment: e.Environment}}
		}
	}
	return out
}

func toModelViewer(id deploy.Identity) *model.Viewer {
	groups := id.Groups
	if groups == nil {
		groups = []string{}
	}
	return &model.Viewer{Subject: id.Subject, Groups: groups}
}

// toModelKeyValues sorts by key so that a client diffing two reads sees no
// change where there is none.
func toModelKeyValues(m map[string]string) []model.KeyValue {
	out := make([]model.KeyValue, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, model.KeyValue{Key: k, Value: m[k]})
	}
	return out
}

// toListFilter decodes the GraphQL filter; the Service adds what the caller
// may read.
func toListFilter(f *model.DeploymentFilter, first *int, after *string) deploy.ListFilter {
	out := deploy.ListFilter{}
	if first != nil {
		out.First = *first
	}
	if after != nil {
		out.After = *after
	}
	if f == nil {
		return out
	}
	out.Tenant = deref(f.Tenant)
	out.Application = deref(f.Application)
	out.Environment = deref(f.Environment)
	out.Requester = deref(f.Requester)
	out.CreatedAfter = f.CreatedAfter
	out.CreatedBefore = f.CreatedBefore
	out.ActiveOnly = f.Active != nil && *f.Active
	for _, s := range f.States {
		out.States = append(out.States, deploy.State(s))
	}
	return out
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
