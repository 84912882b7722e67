package governance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/types"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

// RegoQuery is what the policy must define: package manent.governance, rule
// decision (see docs/governance.md for its shape).
const RegoQuery = "data.manent.governance.decision"

// Rego implements deploy.Governor with a Rego policy evaluated in-process by
// Open Policy Agent; the query is prepared once and is safe for concurrent
// use. The same caller duties as Rules apply (FreezeOverride stripped
// without the permission; no call for dry-runs).
type Rego struct {
	query rego.PreparedEvalQuery
}

var (
	_ deploy.Governor       = (*Rego)(nil)
	_ deploy.FreezeCalendar = (*Rego)(nil)
)

// NewRego compiles module (Rego v1 syntax) and prepares its decision.
// lookup serves the builtin manent.succeeded_deploys; it may be nil when
// the policy does not call it.
func NewRego(module string, lookup Lookup) (*Rego, error) {
	opts := []func(*rego.Rego){
		rego.Query(RegoQuery),
		rego.Module("governance.rego", module),
		rego.SetRegoVersion(ast.RegoV1),
		// A builtin error (a bad time, a failed lookup) must refuse to
		// decide rather than make a rule silently undefined.
		rego.StrictBuiltinErrors(true),
	}
	opts = append(opts, builtins(lookup)...)
	pq, err := rego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		return nil, fmt.Errorf("governance: rego policy: %w", err)
	}
	return &Rego{query: pq}, nil
}

// Decide evaluates the policy's decision.
func (r *Rego) Decide(ctx context.Context, in deploy.GovernanceInput) (deploy.Decision, error) {
	o, err := r.eval(ctx, in)
	if err != nil {
		return deploy.Decision{}, err
	}
	return o.decision(in)
}

// Frozen evaluates the policy and returns its freeze part, with
// Overridden set when in.FreezeOverride is.
func (r *Rego) Frozen(ctx context.Context, in deploy.GovernanceInput) (*deploy.Freeze, error) {
	o, err := r.eval(ctx, in)
	if err != nil {
		return nil, err
	}
	return o.frozen(in), nil
}

// Calendar is not available with a Rego policy: the policy answers for one
// instant (its freeze part), and cannot be asked for the windows ahead.
func (r *Rego) Calendar(context.Context, deploy.GovernanceInput, time.Time, time.Time) ([]deploy.FreezeWindow, error) {
	return nil, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: ErrRegoCalendar}
}

// ErrRegoCalendar is the message of Rego's Calendar refusal.
const ErrRegoCalendar = "the freeze calendar is not available with a Rego policy"

// regoDecision is the decision a policy returns; unknown keys are refused
// so that a typo cannot drop a requirement.
type regoDecision struct {
	Rules     []string            `json:"rules"`
	Refusals  []deploy.FieldError `json:"refusals"`
	Approvals *struct {
		Count         *int     `json:"count"`
		Groups        []string `json:"groups"`
		Roles         []string `json:"roles"`
		ExpirySeconds *float64 `json:"expiry_seconds"`
	} `json:"approvals"`
	Change *struct {
		Connector string `json:"connector"`
	} `json:"change"`
	Freeze *struct {
		Window string `json:"window"`
		Until  string `json:"until"`
	} `json:"freeze"`
	Promotion *struct {
		From        string `json:"from"`
		SatisfiedBy string `json:"satisfied_by"`
	} `json:"promotion"`
}

func (r *Rego) eval(ctx context.Context, in deploy.GovernanceInput) (*outcome, error) {
	rs, err := r.query.Eval(ctx, rego.EvalInput(Input(in)), rego.EvalTime(in.Time))
	if err != nil {
		return nil, fmt.Errorf("governance: rego policy: %w", err)
	}
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return nil, errors.New("governance: rego policy: " + RegoQuery + " is undefined (define it for every input, for example with default decision := {})")
	}
	if len(rs) > 1 {
		return nil, errors.New("governance: rego policy: " + RegoQuery + " has several values")
	}
	raw, err := json.Marshal(rs[0].Expressions[0].Value)
	if err != nil {
		return nil, fmt.Errorf("governance: rego policy: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var rd regoDecision
	if err := dec.Decode(&rd); err != nil {
		return nil, fmt.Errorf("governance: rego policy: decision: %w", err)
	}
	return rd.outcome()
}

func (rd *regoDecision) outcome() (*outcome, error) {
	bad := func(format string, args ...any) (*outcome, error) {
		return nil, fmt.Errorf("governance: rego policy: decision: "+format, args...)
	}
	o := &outcome{rules: rd.Rules}
	for _, f := range rd.Refusals {
		if f.Message == "" {
			return bad("a refusal has no message")
		}
		if f.Path == "" {
			f.Path = PathPolicy
		}
		o.refusals = append(o.refusals, f)
	}
	if a := rd.Approvals; a != nil {
		req := &deploy.ApprovalRequirement{Count: config.DefaultApprovalCount, Groups: a.Groups, Expiry: config.DefaultApprovalExpiry}
		if len(req.Groups) == 0 {
			req.Groups = nil
		}
		if len(a.Roles) > 0 {
			req.Roles = a.Roles
		}
		if a.Count != nil {
			req.Count = *a.Count
		}
		if a.ExpirySeconds != nil {
			req.Expiry = time.Duration(*a.ExpirySeconds * float64(time.Second))
		}
		if req.Count < 1 || req.Expiry < time.Second {
			return bad("approvals need a count of at least 1 and an expiry of at least 1 second")
		}
		o.approvals = req
	}
	if c := rd.Change; c != nil {
		if c.Connector == "" {
			return bad("change.connector is empty")
		}
		o.change = &deploy.ChangeRequirement{Connector: c.Connector}
	}
	if f := rd.Freeze; f != nil {
		until, err := time.Parse(time.RFC3339, f.Until)
		if f.Window == "" || err != nil {
			return bad("freeze needs a window name and until in RFC 3339")
		}
		o.freeze = &deploy.Freeze{Window: f.Window, Until: until.UTC()}
	}
	if p := rd.Promotion; p != nil {
		o.promotion = &deploy.PromotionCheck{From: p.From, SatisfiedBy: p.SatisfiedBy}
	}
	return o, nil
}

// Input is the policy's input document for in: every time is given in
// RFC 3339 (UTC) and in nanoseconds since the epoch (the _ns keys), so that
// a policy can compare times without parsing them.
func Input(in deploy.GovernanceInput) map[string]any {
	labels := map[string]any{}
	for k, v := range in.Labels {
		labels[k] = v
	}
	inventory := make([]any, 0, len(in.Inventory))
	for _, e := range in.Inventory {
		inventory = append(inventory, map[string]any{
			"tenant": e.Tenant, "application": e.Application, "environment": e.Environment,
			"deployment_id": e.DeploymentID, "artifact": artifact(e.Artifact), "sha256": e.SHA256,
			"deployed_at": rfc3339(e.DeployedAt), "deployed_at_ns": json.Number(fmt.Sprint(e.DeployedAt.UnixNano())),
			"deployed_by": e.DeployedBy,
		})
	}
	groups := make([]any, 0, len(in.Identity.Groups))
	for _, g := range in.Identity.Groups {
		groups = append(groups, g)
	}
	return map[string]any{
		"identity":        map[string]any{"subject": in.Identity.Subject, "groups": groups},
		"tenant":          in.Tenant,
		"application":     in.Application,
		"environment":     in.Environment,
		"labels":          labels,
		"artifact":        artifact(in.Artifact),
		"freeze_override": in.FreezeOverride,
		"time":            rfc3339(in.Time),
		"time_ns":         json.Number(fmt.Sprint(in.Time.UnixNano())),
		"inventory":       inventory,
	}
}

func artifact(a deploy.Artifact) map[string]any {
	return map[string]any{"type": a.Type, "name": a.Name, "version": a.Version, "source": a.Source, "sha256": a.SHA256}
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// builtins are the functions manent gives policies (see docs/governance.md).
func builtins(lookup Lookup) []func(*rego.Rego) {
	success := types.NewObject([]*types.StaticProperty{
		types.NewStaticProperty("id", types.S),
		types.NewStaticProperty("finished_at", types.S),
		types.NewStaticProperty("finished_at_ns", types.N),
	}, nil)
	window := types.NewObject([]*types.StaticProperty{
		types.NewStaticProperty("start", types.S),
		types.NewStaticProperty("start_ns", types.N),
		types.NewStaticProperty("until", types.S),
		types.NewStaticProperty("until_ns", types.N),
	}, nil)
	return []func(*rego.Rego){
		rego.FunctionDyn(&rego.Function{
			Name:             "manent.succeeded_deploys",
			Description:      "The deploys of tenant/application that released artifact_name at version in environment and succeeded.",
			Decl:             types.NewFunction(types.Args(types.S, types.S, types.S, types.S, types.S), types.NewArray(nil, success)),
			Memoize:          true,
			Nondeterministic: true,
		}, func(bctx rego.BuiltinContext, terms []*ast.Term) (*ast.Term, error) {
			var args [5]string
			if len(terms) < len(args) {
				return nil, rego.NewHaltError(errors.New("five arguments are needed"))
			}
			// The evaluator may pass the output term after the arguments.
			for i, t := range terms[:len(args)] {
				s, ok := t.Value.(ast.String)
				if !ok {
					return nil, rego.NewHaltError(fmt.Errorf("argument %d must be a string", i+1))
				}
				args[i] = string(s)
			}
			if lookup == nil {
				return nil, rego.NewHaltError(errors.New("no deploy history is available to this policy"))
			}
			done, err := lookup.SucceededDeploys(bctx.Context, args[0], args[1], args[2], args[3], args[4])
			if err != nil {
				return nil, rego.NewHaltError(err)
			}
			out := make([]*ast.Term, 0, len(done))
			for _, s := range done {
				out = append(out, ast.ObjectTerm(
					ast.Item(ast.StringTerm("id"), ast.StringTerm(s.DeploymentID)),
					ast.Item(ast.StringTerm("finished_at"), ast.StringTerm(rfc3339(s.FinishedAt))),
					ast.Item(ast.StringTerm("finished_at_ns"), ast.NumberTerm(json.Number(fmt.Sprint(s.FinishedAt.UnixNano())))),
				))
			}
			return ast.ArrayTerm(out...), nil
		}),
		rego.Function4(&rego.Function{
			Name:        "manent.recurring_window",
			Description: "The window of a 5-field cron expression read in an IANA time zone, lasting a Go duration, in force at time_ns; undefined outside.",
			Decl:        types.NewFunction(types.Args(types.S, types.S, types.S, types.N), window),
			Memoize:     true,
		}, func(_ rego.BuiltinContext, c, d, tz, at *ast.Term) (*ast.Term, error) {
			cronExpr, ok1 := c.Value.(ast.String)
			dur, ok2 := d.Value.(ast.String)
			zone, ok3 := tz.Value.(ast.String)
			ns, ok4 := at.Value.(ast.Number)
			if !ok1 || !ok2 || !ok3 || !ok4 {
				return nil, rego.NewHaltError(errors.New("arguments must be cron, duration, timezone (strings) and time_ns (number)"))
			}
			n, ok := ns.Int64()
			if !ok {
				return nil, rego.NewHaltError(errors.New("time_ns must be an integer"))
			}
			w := config.RecurringWindow{Cron: string(cronExpr), Timezone: string(zone)}
			length, err := time.ParseDuration(string(dur))
			if err != nil || length <= 0 || length > config.MaxFreezeDuration {
				return nil, rego.NewHaltError(fmt.Errorf("duration %q must be a Go duration between 1s and 744h", dur))
			}
			s, err := w.Schedule()
			if err != nil {
				return nil, rego.NewHaltError(fmt.Errorf("cron %q: %w", cronExpr, err))
			}
			start, until, in := recurringWindow(s, length, time.Unix(0, n))
			if !in {
				return nil, nil
			}
			return ast.ObjectTerm(
				ast.Item(ast.StringTerm("start"), ast.StringTerm(rfc3339(start))),
				ast.Item(ast.StringTerm("start_ns"), ast.NumberTerm(json.Number(fmt.Sprint(start.UnixNano())))),
				ast.Item(ast.StringTerm("until"), ast.StringTerm(until.Format(time.RFC3339))),
				ast.Item(ast.StringTerm("until_ns"), ast.NumberTerm(json.Number(fmt.Sprint(until.UnixNano())))),
			), nil
		}),
		rego.Function1(&rego.Function{
			Name:        "manent.format_duration",
			Description: "Nanoseconds written as manent writes durations in messages (1h30m, 10m, 45s).",
			Decl:        types.NewFunction(types.Args(types.N), types.S),
		}, func(_ rego.BuiltinContext, x *ast.Term) (*ast.Term, error) {
			ns, ok := x.Value.(ast.Number)
			if !ok {
				return nil, rego.NewHaltError(errors.New("argument must be a number of nanoseconds"))
			}
			n, ok := ns.Int64()
			if !ok {
				f, _ := ns.Float64()
				n = int64(f)
			}
			return ast.StringTerm(deploy.FormatDuration(time.Duration(n))), nil
		}),
	}
}
