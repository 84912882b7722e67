package chains

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"manent.dev/manent/deploy"
)

// MsgImportsUnresolved is the message of the EUNPROCESSABLE error of
// Resolve and CheckImportsAtSubmit.
const MsgImportsUnresolved = "imports of the deploy cannot be resolved"

// ErrNotReady is wrapped by Resolve's error when the producer of a
// deployment import has not ended yet: a temporary condition, to retry
// later, unlike the permanent *deploy.Error of every other refusal. Test it
// with errors.Is.
var ErrNotReady = errors.New("the producer of an import has not succeeded yet")

// Producer is a deploy whose exports can be imported, as the Source reads it.
type Producer struct {
	ID          string
	Tenant      string
	Application string
	Environment string
	State       deploy.State
	DryRun      bool
	// Artifact is the producer's artifact (its name tells releases in
	// service of one application apart, its version goes in Sources).
	Artifact deploy.Artifact
	// Exports are the checked exports recorded when it succeeded.
	Exports []deploy.Export
}

// Source reads producers from the store for Resolve and CheckImportsAtSubmit.
// Errors other than a *deploy.Error are treated as temporary and returned
// wrapped. The Source is also the place for the caller's read permission:
// an unreadable deploy may be ENOTFOUND, or EFORBIDDEN (returned as is).
type Source interface {
	// Deployment returns the deploy with its exports, whatever its state;
	// a *deploy.Error with code ENOTFOUND when there is none.
	Deployment(ctx context.Context, id string) (Producer, error)
	// InService returns the releases in service (inventory) of the
	// application in the environment, each as its deploy with its exports:
	// of the tenant, or of every tenant when tenant is empty. None is not an
	// error.
	InService(ctx context.Context, tenant, application, environment string) ([]Producer, error)
}

// Origin is the producer an import was read from.
type Origin struct {
	DeploymentID string `json:"deployment_id"`
	Tenant       string `json:"tenant"`
	Application  string `json:"application"`
	Environment  string `json:"environment"`
	Version      string `json:"version"`
}

// Resolved is the outcome of the imports of a deploy, persisted with the
// config step so that a resumed deploy uses the same values.
type Resolved struct {
	// Targets come from deploy.targetsFrom, concatenated in order.
	Targets []deploy.Target `json:"targets,omitempty"`
	// Params come from deploy.paramsFrom.
	Params map[string]string `json:"params,omitempty"`
	// Sources is for the config step's output: import.<name> → <deploy>@<version>.
	Sources map[string]string `json:"sources,omitempty"`
	// Origins gives, per import, the producer read: the engine checks the
	// requester's deployment.read on it.
	Origins map[string]Origin `json:"origins,omitempty"`
}

// Resolve reads the imports of d (whose Tenant is set) for the config step
// and returns the targets and parameters they give. A deployment import
// whose producer has not ended yet returns an error wrapping ErrNotReady; a
// producer that ended without success, a dry-run, a missing export, an
// export of the wrong format, no or several releases in service, or a
// deploy importing its own release in service returns one EUNPROCESSABLE,
// permanent *deploy.Error with every problem and its path (imports.infra,
// deploy.paramsFrom.db_host).
func Resolve(ctx context.Context, d *deploy.Descriptor, src Source) (Resolved, error) {
	return resolve(ctx, d, src, false)
}

// CheckImportsAtSubmit checks at submission what can be checked already:
// the imports of producers that have already succeeded and of releases in
// service. Producers that have not ended yet are left to Resolve in the
// worker. It returns nil or the error Resolve would return.
func CheckImportsAtSubmit(ctx context.Context, d *deploy.Descriptor, src Source) error {
	_, err := resolve(ctx, d, src, true)
	return err
}

// Apply returns a copy of d with the resolved targets and parameters added
// to its deploy section, and without targetsFrom and paramsFrom, which they
// replace: the copy goes through the normal merge with the environment
// configuration, so imported values are descriptor additions under the
// descriptor policy and its conflict rules. d is not modified; the copy
// shares d's other maps and slices.
func Apply(d *deploy.Descriptor, r Resolved) *deploy.Descriptor {
	out := *d
	out.Deploy.Targets = append(slices.Clone(d.Deploy.Targets), r.Targets...)
	out.Deploy.Params = maps.Clone(d.Deploy.Params)
	if len(r.Params) > 0 && out.Deploy.Params == nil {
		out.Deploy.Params = make(map[string]string, len(r.Params))
	}
	maps.Copy(out.Deploy.Params, r.Params)
	out.Deploy.TargetsFrom = nil
	out.Deploy.ParamsFrom = nil
	return &out
}

// loaded is the outcome of reading one import.
type loaded struct {
	origin  Origin
	exports map[string]deploy.Export
	// publicOnly is set for another tenant's release: its other exports are hidden.
	publicOnly bool
}

type resolver struct {
	d        *deploy.Descriptor
	src      Source
	atSubmit bool
	errs     []deploy.FieldError
	notReady []string
	imports  map[string]*loaded
}

func (r *resolver) fail(path, format string, args ...any) {
	r.errs = append(r.errs, deploy.FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
}

func resolve(ctx context.Context, d *deploy.Descriptor, src Source, atSubmit bool) (Resolved, error) {
	r := &resolver{d: d, src: src, atSubmit: atSubmit, imports: map[string]*loaded{}}
	if len(d.Imports) > deploy.MaxImports {
		r.fail("imports", "at most %d imports are allowed, found %d", deploy.MaxImports, len(d.Imports))
	}
	used := usedImports(d)
	for _, name := range sortedKeys(d.Imports) {
		if !used[name] {
			r.fail("imports."+name, "not used by deploy.targetsFrom or deploy.paramsFrom")
			continue
		}
		if err := r.load(ctx, name, d.Imports[name]); err != nil {
			return Resolved{}, err
		}
	}
	out := Resolved{
		Targets: r.targets(),
		Params:  r.params(),
	}
	if len(r.errs) > 0 {
		return Resolved{}, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: MsgImportsUnresolved, Fields: r.errs, Permanent: true}
	}
	if len(r.notReady) > 0 {
		return Resolved{}, fmt.Errorf("%s: %w", strings.Join(r.notReady, "; "), ErrNotReady)
	}
	for _, name := range sortedKeys(r.imports) {
		o := r.imports[name].origin
		if out.Sources == nil {
			out.Sources, out.Origins = map[string]string{}, map[string]Origin{}
		}
		out.Sources["import."+name] = o.DeploymentID + "@" + o.Version
		out.Origins[name] = o
	}
	return out, nil
}

func usedImports(d *deploy.Descriptor) map[string]bool {
	used := map[string]bool{}
	for _, ref := range d.Deploy.TargetsFrom {
		used[ref.Import] = true
	}
	for _, ref := range d.Deploy.ParamsFrom {
		used[ref.Import] = true
	}
	return used
}

// load reads one import into r.imports, or records why it cannot. It
// returns only the errors that are not the descriptor's fault.
func (r *resolver) load(ctx context.Context, name string, imp deploy.Import) error {
	path := "imports." + name
	switch {
	case (imp.Deployment == "") == (imp.Current == nil):
		r.fail(path, "needs exactly one of deployment and current")
		return nil
	case imp.Deployment != "":
		return r.loadDeployment(ctx, path, imp.Deployment)
	default:
		return r.loadCurrent(ctx, path, *imp.Current)
	}
}

func (r *resolver) loadDeployment(ctx context.Context, path, id string) error {
	if !slices.Contains(r.d.After, id) {
		r.fail(path+".deployment", "must be among the dependencies (after)")
		return nil
	}
	p, err := r.src.Deployment(ctx, id)
	if err != nil {
		return r.sourceError(path, "deploy "+id, err)
	}
	switch {
	case p.DryRun:
		r.fail(path, "deploy %s is a dry-run: a dry-run has no exports", id)
	case p.State == deploy.StateSuccess:
		r.imports[strings.TrimPrefix(path, "imports.")] = newLoaded(p, p.Exports)
	case p.State.Terminal():
		r.fail(path, "deploy %s ended %s: it has no exports", id, p.State)
	case !r.atSubmit:
		r.notReady = append(r.notReady, fmt.Sprintf("%s: deploy %s is %s", path, id, p.State))
	}
	return nil
}

func (r *resolver) loadCurrent(ctx context.Context, path string, c deploy.CurrentImport) error {
	env := c.Environment
	if env == "" {
		env = r.d.Environment
	}
	what := fmt.Sprintf("release in service of %s in %s", c.Application, env)
	found, err := r.src.InService(ctx, c.Tenant, c.Application, env)
	if err != nil {
		return r.sourceError(path, what, err)
	}
	found = slices.DeleteFunc(slices.Clone(found), func(p Producer) bool {
		return (c.Tenant != "" && p.Tenant != c.Tenant) || (c.Artifact != "" && p.Artifact.Name != c.Artifact)
	})
	if c.Tenant == "" {
		found = r.pickTenant(path+".current", found)
		if found == nil {
			return nil
		}
	}
	switch {
	case len(found) == 0:
		r.fail(path, "no %s", what)
		return nil
	case len(found) > 1:
		names := make([]string, len(found))
		for i, p := range found {
			names[i] = p.Artifact.Name
		}
		slices.Sort(names)
		r.fail(path+".current.artifact", "%s has several artifacts (%s): give the artifact", what, strings.Join(names, ", "))
		return nil
	}
	p := found[0]
	if p.Tenant == r.d.Tenant && p.Application == r.d.Application && p.Environment == r.d.Environment {
		r.fail(path, "a deploy cannot import its own release in service")
		return nil
	}
	exports := p.Exports
	if p.Tenant != r.d.Tenant {
		// Another tenant's deploy shows only what it chose to publish.
		exports = slices.DeleteFunc(slices.Clone(exports), func(e deploy.Export) bool { return !e.Public })
	}
	l := newLoaded(p, exports)
	l.publicOnly = p.Tenant != r.d.Tenant
	r.imports[strings.TrimPrefix(path, "imports.")] = l
	return nil
}

// pickTenant applies the tenant default of a current import: the deploy's
// own tenant when the application is in service there, else the only tenant
// where it is. It returns nil after recording an ambiguity, and an empty
// non-nil slice when nothing is in service.
func (r *resolver) pickTenant(path string, found []Producer) []Producer {
	tenants := map[string][]Producer{}
	for _, p := range found {
		tenants[p.Tenant] = append(tenants[p.Tenant], p)
	}
	switch {
	case len(tenants[r.d.Tenant]) > 0:
		return tenants[r.d.Tenant]
	case len(tenants) > 1:
		r.fail(path+".tenant", "the application is in service in several tenants (%s): give the tenant", strings.Join(sortedKeys(tenants), ", "))
		return nil
	default:
		return append([]Producer{}, found...)
	}
}

// sourceError turns a Source error into a recorded problem (ENOTFOUND), a
// refusal returned as is (another *deploy.Error), or a temporary error.
func (r *resolver) sourceError(path, what string, err error) error {
	var de *deploy.Error
	switch {
	case errors.As(err, &de) && de.Code == deploy.ENOTFOUND:
		r.fail(path, "%s not found", what)
		return nil
	case errors.As(err, &de):
		return fmt.Errorf("%s: %w", path, err)
	default:
		return fmt.Errorf("read %s for %s: %w", what, path, err)
	}
}

func newLoaded(p Producer, exports []deploy.Export) *loaded {
	l := &loaded{
		origin: Origin{
			DeploymentID: p.ID, Tenant: p.Tenant, Application: p.Application,
			Environment: p.Environment, Version: p.Artifact.Version,
		},
		exports: make(map[string]deploy.Export, len(exports)),
	}
	for _, e := range exports {
		l.exports[e.Name] = e
	}
	return l
}

// export returns the export a reference points at, or records why not. ok
// is false as well when the import could not be read: its problem is
// already recorded, or it will be known once the producer ends.
func (r *resolver) export(path string, ref deploy.ImportRef, format string) (deploy.Export, bool) {
	if _, declared := r.d.Imports[ref.Import]; !declared {
		r.fail(path+".import", "no import named %s", ref.Import)
		return deploy.Export{}, false
	}
	l, ok := r.imports[ref.Import]
	if !ok {
		return deploy.Export{}, false
	}
	e, ok := l.exports[ref.Export]
	if !ok && l.publicOnly {
		r.fail(path+".export", "deploy %s of tenant %s has no public export named %s", l.origin.DeploymentID, l.origin.Tenant, ref.Export)
		return deploy.Export{}, false
	}
	if !ok {
		r.fail(path+".export", "deploy %s has no export named %s", l.origin.DeploymentID, ref.Export)
		return deploy.Export{}, false
	}
	if e.Format == "" {
		e.Format = deploy.ExportString
	}
	if e.Format != format {
		r.fail(path+".export", "export %s of deploy %s is in format %s, %s is needed here", ref.Export, l.origin.DeploymentID, e.Format, format)
		return deploy.Export{}, false
	}
	return e, true
}

func (r *resolver) targets() []deploy.Target {
	var out []deploy.Target
	for i, ref := range r.d.Deploy.TargetsFrom {
		path := fmt.Sprintf("deploy.targetsFrom[%d]", i)
		e, ok := r.export(path, ref, deploy.ExportTargets)
		if !ok {
			continue
		}
		// Checked when exported, parsed again because stored values cross a
		// database: a plugin must never receive a target that was not checked.
		ts, errs := parseTargets(e.Value, nil)
		for _, fe := range errs {
			r.fail(path, "export %s: targets%s: %s", ref.Export, fe.Path, fe.Message)
		}
		out = append(out, ts...)
	}
	// The descriptor's own limit on targets holds for what imports add.
	if n := len(r.d.Deploy.Targets) + len(out); n > deploy.MaxExportTargets {
		r.fail("deploy.targetsFrom", "at most %d targets are allowed in all, found %d", deploy.MaxExportTargets, n)
	}
	return out
}

func (r *resolver) params() map[string]string {
	var out map[string]string
	for _, name := range sortedKeys(r.d.Deploy.ParamsFrom) {
		path := "deploy.paramsFrom." + name
		if _, both := r.d.Deploy.Params[name]; both {
			r.fail(path, "also set in deploy.params: give it in one place only")
			continue
		}
		e, ok := r.export(path, r.d.Deploy.ParamsFrom[name], deploy.ExportString)
		if !ok {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[name] = e.Value
	}
	return out
}
