package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/complexity"
	"github.com/vektah/gqlparser/v2"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/generated"
)

// hostileIntrospection is the query of the report: aliases of __schema
// over a fragment of aliased __Type.fields. At 100 by 100 it is 4.7 KB and
// answered 105 MB after 86 s when introspection escaped the limits.
func hostileIntrospection(schemas, fields int) string {
	var b strings.Builder
	b.WriteString("query {")
	for i := range schemas {
		fmt.Fprintf(&b, " s%d: __schema { ...S }", i)
	}
	b.WriteString(" }\nfragment S on __Schema { types { ...T } }\nfragment T on __Type {")
	for i := range fields {
		fmt.Fprintf(&b, " f%d: fields { name }", i)
	}
	b.WriteString(" }\n")
	return b.String()
}

// doublingFragments spreads each fragment twice in the next: n fragments
// select 2^n fields in a document of a few bytes per fragment.
func doublingFragments(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "query { ...F%d }\nfragment F0 on Query { viewer { subject } }\n", n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "fragment F%d on Query { ...F%d ...F%d }\n", i, i-1, i-1)
	}
	return b.String()
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// postRaw sends a query and returns the raw body of the answer. The
// deadline only bounds a failure: a limit that does not hold costs minutes
// (or forever, for fragments that double), a refusal a few milliseconds.
func (s *testServer) postRaw(t *testing.T, token, query string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	body, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestLimitsCoverIntrospection(t *testing.T) {
	hostile := hostileIntrospection(100, 100)
	if len(hostile) < 4000 || len(hostile) > 5000 {
		t.Fatalf("the hostile query is %d bytes, want the report's 4.7 KB", len(hostile))
	}
	tests := []struct {
		name  string
		tweak func(*HandlerOptions)
		query string
		// code is the refusal's; "" means the query is answered.
		code string
	}{
		{name: "aliased nested introspection", query: hostile, code: codeComplexity},
		{name: "fragments that double", query: doublingFragments(70), code: codeComplexity},
		// Validation compares same-named fields pairwise: 14 KB of them held
		// a core for 20 s. The unknown field shows that the size is judged
		// before validation, which would refuse it otherwise.
		{name: "thousands of fields, judged before validation",
			query: "{" + strings.Repeat(" __typename", 14000) + " nope }", code: codeComplexity},
		{name: "fragments in a cycle are counted once",
			query: "query { ...A } fragment A on Query { viewer { subject } ...B } fragment B on Query { ...A }", code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "a fragment costs at every spread", tweak: func(o *HandlerOptions) { o.ComplexityLimit = 10 },
			query: `query { a: viewer { ...V } b: viewer { ...V } c: viewer { ...V } d: viewer { ...V } } fragment V on Viewer { subject groups }`,
			code:  codeComplexity},
		{name: "__type costs like any field", tweak: func(o *HandlerOptions) { o.ComplexityLimit = 3 },
			query: `{ __type(name: "Query") { name fields { name } } }`, code: codeComplexity},
		{name: "introspection depth", tweak: func(o *HandlerOptions) { o.DepthLimit = 4 },
			query: `{ __schema { types { fields { type { name } } } } }`, code: codeDepth},
		{name: "introspection depth through fragments", tweak: func(o *HandlerOptions) { o.DepthLimit = 4 },
			query: `{ __schema { ...S } } fragment S on __Schema { types { ...T } } fragment T on __Type { fields { type { name } } }`, code: codeDepth},
		{name: "ofType does not deepen", tweak: func(o *HandlerOptions) { o.DepthLimit = 4 },
			query: `{ __schema { types { ofType { ofType { ofType { ofType { name } } } } } } }`},
		{name: "the standard introspection query", query: readTestdata(t, "introspection.graphql")},
		{name: "the full introspection query", query: readTestdata(t, "introspection-full.graphql")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tweaks := []func(*HandlerOptions){func(o *HandlerOptions) { o.MayIntrospect = Everyone }}
			if tt.tweak != nil {
				tweaks = append(tweaks, tt.tweak)
			}
			srv := newTestServer(t, &fakeService{}, newFakeEvents(), tweaks...)
			raw := srv.postRaw(t, "viewer", tt.query)
			var resp gqlResponse
			if err := json.Unmarshal(raw, &resp); err != nil {
				t.Fatalf("decode %.300s: %v", raw, err)
			}
			if tt.code == "" {
				if len(resp.Errors) > 0 || len(resp.Data) == 0 {
					t.Fatalf("errors = %+v (data %.200s), want an answer", resp.Errors, raw)
				}
				return
			}
			if len(resp.Errors) != 1 || resp.Errors[0].Extensions["code"] != tt.code || len(resp.Data) != 0 {
				t.Fatalf("got %.300s, want one error %s and no data", raw, tt.code)
			}
			// Refused before it ran: the answer is the error alone.
			if len(raw) > 512 {
				t.Errorf("the refusal is %d bytes: %.300s", len(raw), raw)
			}
		})
	}
}

func TestStandardIntrospectionReadsTheSchema(t *testing.T) {
	srv := newTestServer(t, &fakeService{}, newFakeEvents(), func(o *HandlerOptions) { o.MayIntrospect = Everyone })
	resp := srv.query(t, "viewer", readTestdata(t, "introspection.graphql"), nil)
	var data struct {
		Schema struct {
			QueryType struct{ Name string }
			Types     []struct{ Name string }
		} `json:"__schema"`
	}
	if len(resp.Errors) > 0 || json.Unmarshal(resp.Data["__schema"], &data.Schema) != nil {
		t.Fatalf("errors %+v", resp.Errors)
	}
	found := false
	for _, ty := range data.Schema.Types {
		found = found || ty.Name == "Deployment"
	}
	if data.Schema.QueryType.Name != "Query" || !found {
		t.Errorf("schema = %+v", data.Schema)
	}
}

func TestIntrospectionPolicy(t *testing.T) {
	every := deploy.Resource{Application: "*", Environment: "*"}
	svc := &fakeService{can: func(ctx context.Context, res deploy.Resource, perm string) bool {
		return deploy.IdentityFrom(ctx).Subject == "token:admin" && res == every && perm == deploy.PermAdmin
	}}
	schema := `{ __schema { queryType { name } } }`
	tests := []struct {
		name   string
		may    func(context.Context) bool
		token  string
		query  string
		code   string
		reason string
	}{
		{name: "an administrator", may: Administrators(svc), token: "admin", query: schema},
		{name: "a reader", may: Administrators(svc), token: "viewer", query: schema, code: "FORBIDDEN", reason: "token:viewer"},
		{name: "__type", may: Administrators(svc), token: "viewer", query: `{ __type(name: "Query") { name } }`, code: "FORBIDDEN"},
		{name: "through a fragment", may: Administrators(svc), token: "viewer",
			query: `query { ...F } fragment F on Query { __schema { queryType { name } } }`, code: "FORBIDDEN"},
		{name: "through an inline fragment", may: Administrators(svc), token: "viewer",
			query: `{ ... on Query { __type(name: "Query") { name } } }`, code: "FORBIDDEN"},
		{name: "__typename is no introspection", may: Administrators(svc), token: "viewer", query: `{ __typename viewer { __typename subject } }`},
		{name: "everyone", may: Everyone, token: "viewer", query: schema},
		{name: "no one", token: "admin", query: schema, code: "FORBIDDEN"},
		{name: "the limits come first", may: Administrators(svc), token: "viewer", query: hostileIntrospection(100, 100), code: codeComplexity},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, svc, newFakeEvents(), func(o *HandlerOptions) { o.MayIntrospect = tt.may })
			resp := srv.query(t, tt.token, tt.query, nil)
			switch {
			case tt.code == "" && (len(resp.Errors) > 0 || len(resp.Data) == 0):
				t.Fatalf("errors = %+v, want an answer", resp.Errors)
			case tt.code != "" && (len(resp.Errors) != 1 || resp.Errors[0].Extensions["code"] != tt.code || len(resp.Data) != 0):
				t.Fatalf("errors = %+v, data %v, want one %s and no data", resp.Errors, resp.Data, tt.code)
			case tt.reason != "" && !strings.Contains(resp.Errors[0].Message, tt.reason):
				t.Errorf("message %q does not say %q", resp.Errors[0].Message, tt.reason)
			}
		})
	}
}

// TestLimitsKeepTheRealOperations measures every operation of the CLI
// (client/*.graphql) and of the web interface (frontend/src/gql/gql.ts):
// each stays within the limits, and costs what gqlgen's own count says (the
// two agree wherever no introspection is asked for).
func TestLimitsKeepTheRealOperations(t *testing.T) {
	es := generated.NewExecutableSchema(generated.Config{Resolvers: &Resolver{}})
	sets := map[string][]string{"CLI": clientOperations(t), "web": webOperations(t)}
	for name, docs := range sets {
		if len(docs) == 0 {
			t.Fatalf("no operations of the %s found", name)
		}
		doc, errs := gqlparser.LoadQueryWithRules(es.Schema(), strings.Join(docs, "\n"), nil)
		if errs != nil {
			t.Fatalf("%s operations: %v", name, errs)
		}
		for _, op := range doc.Operations {
			cost := walker{fragments: doc.Fragments, memo: map[string]int{}, field: costOf}.selectionSet(op.SelectionSet)
			depth := walker{fragments: doc.Fragments, memo: map[string]int{}, field: depthOf, deepest: true}.selectionSet(op.SelectionSet)
			want := complexity.Calculate(t.Context(), es, op, nil)
			if cost != want || cost > DefaultComplexityLimit || depth > DefaultDepthLimit {
				t.Errorf("%s %s: complexity %d (gqlgen %d), depth %d", name, op.Name, cost, want, depth)
			}
		}
	}
}

func clientOperations(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "client", "*.graphql"))
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	return docs
}

// webOperations reads the documents of the SPA from the map its codegen
// writes, whose keys are the operations' source.
func webOperations(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "frontend", "src", "gql", "gql.ts"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var docs []string
	for _, m := range regexp.MustCompile(`(?m)^\s*("(?:[^"\\]|\\.)*"): typeof types\.`).FindAllStringSubmatch(string(b), -1) {
		var src string
		if err := json.Unmarshal([]byte(m[1]), &src); err != nil {
			t.Fatalf("document %s: %v", m[1], err)
		}
		if !seen[src] {
			seen[src] = true
			docs = append(docs, src)
		}
	}
	return docs
}
