package graph

import (
	"context"
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

// ComplexityLimit refuses operations that cost more than limit. A field
// costs one, plus what is selected under it; a fragment costs what it
// selects at every place it is spread. Introspection fields count too.
// gqlgen's per-field complexity functions are not consulted: the schema
// defines none, and the documented rule is one per field.
func ComplexityLimit(limit int) graphql.HandlerExtension { return complexityLimit{limit: limit} }

type complexityLimit struct{ limit int }

var _ graphql.OperationContextMutator = complexityLimit{}

func (complexityLimit) ExtensionName() string                   { return "ComplexityLimit" }
func (complexityLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (c complexityLimit) MutateOperationContext(_ context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	op := opCtx.Doc.Operations.ForName(opCtx.OperationName)
	if op == nil {
		return nil
	}
	w := walker{fragments: opCtx.Doc.Fragments, memo: map[string]int{}, field: costOf}
	if cost := w.selectionSet(op.SelectionSet); cost > c.limit {
		err := gqlerror.Errorf("operation has complexity %s, which exceeds the limit of %d", costText(cost), c.limit)
		errcode.Set(err, codeComplexity)
		return err
	}
	return nil
}

func costOf(_ *ast.Field, below int) int { return add(1, below) }

// FieldLimit refuses, before the document is validated, an operation that
// holds more than limit fields, counting each field of the operation and of
// the fragments it reaches once. Each of them costs at least one in
// ComplexityLimit, so FieldLimit refuses nothing that would pass it; it only
// refuses sooner. tokens is the parser's token limit.
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
		err := gqlerror.Errorf("operation has more than %d fields, which exceeds the complexity limit of %d", f.limit, f.limit)
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

// Administrators is the policy of server.introspection: admins: the
// callers that hold admin on every application and environment of the
// default tenant, such as the role of `p, admin, *, *, admin`.
func Administrators(svc deploy.Service) func(ctx context.Context) bool {
	every := deploy.Resource{Application: "*", Environment: "*"}
	return func(ctx context.Context) bool { return svc.Can(ctx, every, deploy.PermAdmin) }
}

// Everyone is the policy of server.introspection: all (every authenticated
// caller: the endpoint refuses the others before any operation).
func Everyone(context.Context) bool { return true }
