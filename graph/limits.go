package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"manent.dev/manent/deploy"
)

// The limits of one operation run before it does, and cover introspection
// like any other field. gqlgen's own complexity limit skips __schema, so a
// 4.7 KB query of aliased introspection answered 105 MB after 86 s; and it
// walks a fragment anew at every spread, so a few hundred bytes of fragments
// that each spread the previous one twice cost exponential time before
// anything was refused. Both walks below read each fragment once. And the
// validation gqlgen runs before any of them compares fields of the same
// name pairwise: 14,000 __typename (14 KB) held a core for 20 s before the
// complexity limit refused them, so FieldLimit counts fields before it.

// Codes of the refusals of this file (extensions.code).
const (
	codeComplexity = "COMPLEXITY_LIMIT_EXCEEDED"
	codeDepth      = "DEPTH_LIMIT_EXCEEDED"
)

// ComplexityLimit refuses operations that cost more than limit, and
// operations of more than fields fields. A field costs one plus what is
// selected under it; a list field that returns up to n items (listSizes)
// costs one plus n times what is selected under it; a fragment costs what
// it selects at every place it is spread. Introspection fields count one
// each (their lists have no size argument): fields bounds them as the one
// per field count did before lists were weighed, and limit bounds what
// lists of deploys and log lines may return; the affordances cost more
// than one (fieldCosts). gqlgen's per-field complexity functions are not
// consulted: the schema defines none, and the rule has one home, here.
func ComplexityLimit(limit, fields int) graphql.HandlerExtension {
	return complexityLimit{limit: limit, fields: fields}
}

type complexityLimit struct{ limit, fields int }

var _ graphql.OperationContextMutator = complexityLimit{}

func (complexityLimit) ExtensionName() string                   { return "ComplexityLimit" }
func (complexityLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (c complexityLimit) MutateOperationContext(_ context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	op := opCtx.Doc.Operations.ForName(opCtx.OperationName)
	if op == nil {
		return nil
	}
	if n := fieldsOf(op, opCtx.Doc.Fragments); n > c.fields {
		err := gqlerror.Errorf("operation has %s fields, which exceeds the limit of %d", costText(n), c.fields)
		errcode.Set(err, codeComplexity)
		return err
	}
	if cost := costOfOperation(op, opCtx.Doc.Fragments, opCtx.Variables); cost > c.limit {
		err := gqlerror.Errorf("operation has complexity %s, which exceeds the limit of %d", costText(cost), c.limit)
		errcode.Set(err, codeComplexity)
		return err
	}
	return nil
}

// fieldsOf counts the fields of op, a fragment's at every place it is spread.
func fieldsOf(op *ast.OperationDefinition, fragments ast.FragmentDefinitionList) int {
	one := func(_ *ast.Field, below int) int { return add(1, below) }
	return walker{fragments: fragments, memo: map[string]int{}, field: one}.selectionSet(op.SelectionSet)
}

// costOfOperation weighs op with the values of its variables (defaults
// applied, as gqlgen coerces them before the extensions run).
func costOfOperation(op *ast.OperationDefinition, fragments ast.FragmentDefinitionList, vars map[string]any) int {
	field := func(f *ast.Field, below int) int { return add(costOf(f), mul(itemsOf(f, vars), below)) }
	return walker{fragments: fragments, memo: map[string]int{}, field: field}.selectionSet(op.SelectionSet)
}

// affordanceCost is what a field of fieldCosts costs: a decision on a
// deploy, an environment or a release made for the caller (a permission,
// the governance's order, the state it is in), which may read the store
// for each item of a list when its parent does not carry what it needs.
// Once per environment of an answer is the memo's (answerMemo), but a
// list of a thousand deploys asks a thousand times.
const affordanceCost = 10

// fieldCosts are the fields that cost more than one: the affordances and
// the fields with a read of their own, asked per item of the lists above
// them. A hostile query of aliased history(first: 500) { nodes {
// canRollbackTo } } is refused after a few aliases instead of thirty.
var fieldCosts = map[string]int{
	"Deployment.promotionTargets":     affordanceCost,
	"Deployment.canPromote":           affordanceCost,
	"Deployment.canRedeploy":          affordanceCost,
	"Deployment.canRollbackTo":        affordanceCost,
	"Deployment.memberOf":             affordanceCost,
	"Deployment.approvalContext":      affordanceCost,
	"InventoryEntry.promotionTargets": affordanceCost,
	"InventoryEntry.canRollback":      affordanceCost,
	"Environment.canRollback":         affordanceCost,
	"PreviousRelease.canRollbackTo":   affordanceCost,
	"ReleaseDeploy.deployment":        affordanceCost,
	"ReleaseDeploy.failedStep":        affordanceCost,
	"Release.canCancel":               affordanceCost,
	"Schedule.canDelete":              affordanceCost,
}

// costOf is what f costs by itself, without what it selects.
func costOf(f *ast.Field) int {
	if f.ObjectDefinition == nil {
		return 1
	}
	if c, ok := fieldCosts[f.ObjectDefinition.Name+"."+f.Name]; ok {
		return c
	}
	return 1
}

// listSize says how many items a list field returns at most: the value of
// its argument arg (an Int, or the length of a list when length; the
// schema's default when left out), never more than most; most when arg is
// empty, or its value null or not positive. The store applies the same bounds (deploy.MaxPageSize,
// deploy.MaxLogLines, ...), so the count is what the answer may hold.
type listSize struct {
	arg    string
	length bool
	most   int
}

// listSizes are the list fields whose items are deploys or log lines, or
// hold them: what a small request could multiply into a large answer. The
// other lists (steps, approvals, targets, introspection's) are bounded by
// what one object holds and count one per field. A test holds every field
// with a first or limit argument to this table.
var listSizes = map[string]listSize{
	"Query.deployments": {arg: "first", most: deploy.MaxPageSize},
	// The inventory is no page: it has an entry per environment. It counts
	// as the largest page, with the affordances of each entry.
	"Query.inventory":               {most: deploy.MaxPageSize},
	"Environment.history":           {arg: "first", most: deploy.MaxPageSize},
	"Query.activity":                {arg: "first", most: deploy.MaxPageSize},
	"Query.releases":                {arg: "first", most: deploy.MaxPageSize},
	"Query.auditEntries":            {arg: "first", most: deploy.MaxPageSize},
	"Query.pendingApprovals":        {most: deploy.MaxPageSize},
	"Subscription.pendingApprovals": {most: deploy.MaxPageSize},
	"Query.freezeCalendars":         {arg: "environments", length: true, most: deploy.MaxFreezeCalendars},
	"Release.deploys":               {most: deploy.MaxReleaseDeploys},
	"Deployment.logs":               {arg: "limit", most: deploy.MaxLogLines},
}

// itemsOf is what the items selected under f are multiplied by: one for a
// field that is no list of listSizes.
func itemsOf(f *ast.Field, vars map[string]any) int {
	if f.ObjectDefinition == nil {
		return 1
	}
	size, ok := listSizes[f.ObjectDefinition.Name+"."+f.Name]
	if !ok {
		return 1
	}
	if size.arg == "" || f.Definition == nil {
		return size.most
	}
	n := 0
	switch v := f.ArgumentMap(vars)[size.arg].(type) {
	case []any:
		n = len(v)
	case map[string]any: // one input object, coerced to a list of one
		n = 1
	default:
		n = intOf(v, size.most)
	}
	if size.length {
		return n // refused beyond most by the service; counted as asked
	}
	if n <= 0 || n > size.most {
		return size.most
	}
	return n
}

// FieldLimit refuses, before the document is validated, an operation that
// holds more than limit fields, counting each field of the operation and of
// the fragments it reaches once. Each of them costs at least one in
// ComplexityLimit's count of fields, so FieldLimit refuses nothing that
// would pass it; it only refuses sooner. tokens is the parser's token limit.
func FieldLimit(limit, tokens int) graphql.HandlerExtension {
	return fieldLimit{limit: limit, tokens: tokens}
}

type fieldLimit struct{ limit, tokens int }

var _ graphql.OperationParameterMutator = fieldLimit{}

func (fieldLimit) ExtensionName() string                   { return "FieldLimit" }
func (fieldLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (f fieldLimit) MutateOperationParameters(_ context.Context, params *graphql.RawParams) *gqlerror.Error {
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: params.Query}, f.tokens)
	if err != nil {
		return nil // gqlgen parses it again and says what is wrong
	}
	var op *ast.OperationDefinition
	switch {
	case params.OperationName != "":
		op = doc.Operations.ForName(params.OperationName)
	case len(doc.Operations) == 1:
		op = doc.Operations[0]
	}
	if op == nil {
		return nil // validation refuses it
	}
	if n := countFields(op.SelectionSet, doc.Fragments, map[string]bool{}, f.limit+1); n > f.limit {
		err := gqlerror.Errorf("operation has more than %d fields, which exceeds the limit of %d", f.limit, f.limit)
		errcode.Set(err, codeComplexity)
		return err
	}
	return nil
}

// countFields counts the fields of set and of the fragments it spreads,
// each fragment once (an unvalidated document may spread them in a cycle),
// and stops once it reaches stop.
func countFields(set ast.SelectionSet, fragments ast.FragmentDefinitionList, seen map[string]bool, stop int) int {
	n := 0
	for _, sel := range set {
		if n >= stop {
			break
		}
		switch s := sel.(type) {
		case *ast.Field:
			n += 1 + countFields(s.SelectionSet, fragments, seen, stop-n-1)
		case *ast.InlineFragment:
			n += countFields(s.SelectionSet, fragments, seen, stop-n)
		case *ast.FragmentSpread:
			if seen[s.Name] {
				continue
			}
			seen[s.Name] = true
			if def := fragments.ForName(s.Name); def != nil {
				n += countFields(def.SelectionSet, fragments, seen, stop-n)
			}
		}
	}
	return n
}

func costText(cost int) string {
	if cost == math.MaxInt {
		return "beyond counting"
	}
	return fmt.Sprint(cost)
}

// DepthLimit refuses operations whose fields nest deeper than limit.
// Introspection fields count too, except __Type.ofType: it unwraps a list or
// non-null type, which has only a few wrappers and then answers null, so
// the standard introspection query of GraphQL tools (nine ofType deep) is
// as deep as its fields of fields. Complexity still counts every ofType.
func DepthLimit(limit int) graphql.HandlerExtension { return depthLimit{limit: limit} }

type depthLimit struct{ limit int }

var _ graphql.OperationContextMutator = depthLimit{}

func (depthLimit) ExtensionName() string                   { return "DepthLimit" }
func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(_ context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	op := opCtx.Doc.Operations.ForName(opCtx.OperationName)
	if op == nil {
		return nil
	}
	w := walker{fragments: opCtx.Doc.Fragments, memo: map[string]int{}, field: depthOf, deepest: true}
	if w.selectionSet(op.SelectionSet) > d.limit {
		err := gqlerror.Errorf("operation exceeds the depth limit of %d", d.limit)
		errcode.Set(err, codeDepth)
		return err
	}
	return nil
}

func depthOf(f *ast.Field, below int) int {
	if f.Name == "ofType" && f.ObjectDefinition != nil && f.ObjectDefinition.Name == "__Type" {
		return below
	}
	return add(1, below)
}

// walker folds a measure over the fields of a selection set: field gives
// a field's measure from the measure of what it selects, and the fields of
// one set add up (or, when deepest, the largest wins). A fragment's measure
// is the same wherever it is spread, so it is computed once: the walk is
// linear in the size of the document. Validation has refused fragment
// cycles before any extension runs.
type walker struct {
	fragments ast.FragmentDefinitionList
	memo      map[string]int
	field     func(f *ast.Field, below int) int
	deepest   bool
}

func (w walker) selectionSet(set ast.SelectionSet) int {
	total := 0
	for _, sel := range set {
		var m int
		switch s := sel.(type) {
		case *ast.Field:
			m = w.field(s, w.selectionSet(s.SelectionSet))
		case *ast.InlineFragment:
			m = w.selectionSet(s.SelectionSet)
		case *ast.FragmentSpread:
			m = w.spread(s)
		}
		if w.deepest {
			total = max(total, m)
		} else {
			total = add(total, m)
		}
	}
	return total
}

func (w walker) spread(s *ast.FragmentSpread) int {
	if m, ok := w.memo[s.Name]; ok {
		return m
	}
	def := s.Definition
	if def == nil {
		def = w.fragments.ForName(s.Name)
	}
	m := 0
	if def != nil {
		m = w.selectionSet(def.SelectionSet)
	}
	w.memo[s.Name] = m
	return m
}

// intOf reads an Int argument as the parser (int64) or a variable (a JSON
// number) gives it, saturating at most; zero when it is not a number.
func intOf(v any, most int) int {
	var f float64
	switch v := v.(type) {
	case int64:
		f = float64(v)
	case int:
		f = float64(v)
	case float64:
		f = v
	case json.Number:
		f, _ = v.Float64()
	}
	if f > float64(most) {
		return most
	}
	return int(f)
}

// mul is a × b for measures, saturating like add.
func mul(a, b int) int {
	if a != 0 && b > math.MaxInt/a {
		return math.MaxInt
	}
	return a * b
}

// add is a + b for measures (never negative), saturating instead of
// overflowing: fragments that double at every level pass any int.
func add(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// Introspection lets the callers may allows read the schema (__schema and
// __type) and refuses, before it runs, any operation that asks for it from
// another caller. It comes after the limits: an oversized introspection is
// refused as oversized whoever sends it. __typename is always answered.
func Introspection(may func(ctx context.Context) bool) graphql.HandlerExtension {
	return introspection{may: may}
}

type introspection struct {
	may func(ctx context.Context) bool
}

var _ graphql.OperationContextMutator = introspection{}

func (introspection) ExtensionName() string                   { return "IntrospectionPolicy" }
func (introspection) Validate(graphql.ExecutableSchema) error { return nil }

func (i introspection) MutateOperationContext(ctx context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	op := opCtx.Doc.Operations.ForName(opCtx.OperationName)
	if op == nil || !introspects(op.SelectionSet, opCtx.Doc.Fragments, map[string]bool{}) {
		return nil
	}
	if i.may == nil || !i.may(ctx) {
		err := gqlerror.Errorf("introspection is not allowed for %s (server.introspection)", subjectOf(ctx))
		errcode.Set(err, string(deploy.EFORBIDDEN))
		return err
	}
	opCtx.DisableIntrospection = false
	return nil
}

func subjectOf(ctx context.Context) string {
	if id := deploy.IdentityFrom(ctx); !id.Anonymous() {
		return id.Subject
	}
	return "anonymous callers"
}

// introspects reports whether the root selection set asks for __schema or
// __type, the only fields that read the schema (they exist on the query
// root alone, so nothing below a field is looked at).
func introspects(set ast.SelectionSet, fragments ast.FragmentDefinitionList, seen map[string]bool) bool {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if s.Name == "__schema" || s.Name == "__type" {
				return true
			}
		case *ast.InlineFragment:
			if introspects(s.SelectionSet, fragments, seen) {
				return true
			}
		case *ast.FragmentSpread:
			if seen[s.Name] {
				continue
			}
			seen[s.Name] = true
			def := s.Definition
			if def == nil {
				def = fragments.ForName(s.Name)
			}
			if def != nil && introspects(def.SelectionSet, fragments, seen) {
				return true
			}
		}
	}
	return false
}

// Administrators is the policy of server.introspection: admins, and of
// /metrics: the callers that hold admin on every application and
// environment of every tenant, such as the role of `p, admin, *, *, admin`.
// Both are server-wide (the whole schema, figures of every tenant): an
// administrator of one tenant, the default one included, is not enough.
func Administrators(svc deploy.Service) func(ctx context.Context) bool {
	every := deploy.Resource{Tenant: "*", Application: "*", Environment: "*"}
	return func(ctx context.Context) bool { return svc.Can(ctx, every, deploy.PermAdmin) }
}

// Everyone is the policy of server.introspection: all (every authenticated
// caller: the endpoint refuses the others before any operation).
func Everyone(context.Context) bool { return true }
