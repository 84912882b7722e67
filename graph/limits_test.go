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
	every := deploy.Resource{Tenant: "*", Application: "*", Environment: "*"}
	svc := &fakeService{can: func(ctx context.Context, res deploy.Resource, perm string) bool {
		switch deploy.IdentityFrom(ctx).Subject {
		case "token:admin":
			return res == every && perm == deploy.PermAdmin
		case "token:demo-admin": // admin of the default tenant alone
			return res.Tenant != "*" && perm == deploy.PermAdmin
		}
		return false
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
		{name: "an administrator of the default tenant alone", may: Administrators(svc), token: "demo-admin", query: schema, code: "FORBIDDEN", reason: "token:demo-admin"},
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

// aliased repeats a root field n times under aliases.
func aliased(n int, field string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, " a%d: %s", i, field)
	}
	b.WriteString(" }")
	return b.String()
}

// A list field costs what it selects times the items it may return: on a
// server of 500 deploys of 200 log lines, 12 aliases of deployments(first:
// 500) over logs(limit: 5000) (881 bytes, 84 fields) answered 108 MB after
// 23 s to a read-only token while lists counted one per field.
func TestListsMultiplyComplexity(t *testing.T) {
	refs := func(n int) []map[string]string {
		out := make([]map[string]string, n)
		for i := range out {
			out[i] = map[string]string{"application": "a", "environment": fmt.Sprint("e", i)}
		}
		return out
	}
	calendars := `query ($envs: [EnvironmentRef!]!) { freezeCalendars(environments: $envs) { application environment } }`
	tests := []struct {
		name  string
		tweak func(*HandlerOptions)
		query string
		vars  map[string]any
		// code is the refusal's; "" means the query is answered.
		code string
	}{
		{name: "the report's query", code: codeComplexity,
			query: aliased(12, "deployments(first: 500) { edges { node { logs(limit: 5000) { lines { message } } } } }")},
		{name: "one page of deploys with their whole logs", code: codeComplexity,
			query: "{ deployments(first: 500) { nodes { logs(limit: 5000) { lines { message } } } } }"},
		{name: "a size left out counts its default", code: codeComplexity,
			query: aliased(4, "deployments { nodes { logs { lines { message } } } }")},
		{name: "a size given by a variable", code: codeComplexity,
			query: "query ($n: Int) { deployments(first: $n) { nodes { logs(limit: $n) { lines { message } } } } }",
			vars:  map[string]any{"n": 500}},
		{name: "a size beyond the store's bound counts the bound", code: codeComplexity,
			query: aliased(11, "activity(first: 100000) { logs(limit: 1000000) { lines { message } } }")},
		{name: "a size of zero counts the bound", code: codeComplexity,
			query: aliased(11, "activity(first: 0) { logs(limit: 0) { lines { message } } }")},
		{name: "pending approvals count their bound", code: codeComplexity,
			query: "{ pendingApprovals { logs(limit: 5000) { lines { message } } } }"},
		{name: "the members of releases", code: codeComplexity,
			query: "{ releases(first: 500) { nodes { deploys { deployment { logs(limit: 100) { lines { message } } } } } } }"},
		// Each canRollbackTo of a history decided what rollback(to:) would:
		// 30 aliases of 500 rows stayed under the limit while an affordance
		// counted one, and read the tenant's inventory 15,000 times.
		{name: "aliased histories of affordances", code: codeComplexity,
			query: aliased(10, `environment(application: "a", environment: "e") { history(first: 500) { nodes { canRollbackTo } } }`)},
		{name: "aliased inventories of affordances", code: codeComplexity,
			query: aliased(4, "inventory { promotionTargets canRollback previous { canRollbackTo } }")},
		{name: "one history of affordances",
			query: `{ environment(application: "a", environment: "e") { history(first: 500) { nodes { canRollbackTo canRedeploy } } } }`},
		{name: "a small page of deploys with their logs",
			query: "{ deployments(first: 10) { nodes { id logs(limit: 100) { lines { seq message } } } } }"},
		{name: "freeze calendars count the environments asked", tweak: func(o *HandlerOptions) { o.ComplexityLimit = 2 * 10 },
			query: calendars, vars: map[string]any{"envs": refs(10)}, code: codeComplexity},
		{name: "freeze calendars within the limit", tweak: func(o *HandlerOptions) { o.ComplexityLimit = 2*10 + 1 },
			query: calendars, vars: map[string]any{"envs": refs(10)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tweaks []func(*HandlerOptions)
			if tt.tweak != nil {
				tweaks = append(tweaks, tt.tweak)
			}
			srv := newTestServer(t, &fakeService{}, newFakeEvents(), tweaks...)
			resp := srv.query(t, "viewer", tt.query, tt.vars)
			refused := len(resp.Errors) == 1 && resp.Errors[0].Extensions["code"] == codeComplexity
			switch {
			case tt.code != "" && (!refused || len(resp.Data) != 0):
				t.Fatalf("errors %+v, data %v: want one %s and no data", resp.Errors, resp.Data, tt.code)
			case tt.code == "" && refused:
				t.Fatalf("refused: %s", resp.Errors[0].Message)
			}
		})
	}
}

// Every list of the schema that takes a size (first, limit) is weighed by
// it: a new one must say in listSizes how many items it may return.
func TestListSizesCoverTheSchema(t *testing.T) {
	schema := generated.NewExecutableSchema(generated.Config{Resolvers: &Resolver{}}).Schema()
	for _, def := range schema.Types {
		for _, f := range def.Fields {
			for _, a := range f.Arguments {
				key := def.Name + "." + f.Name
				if a.Name != "first" && a.Name != "limit" {
					continue
				}
				if size, ok := listSizes[key]; !ok || size.arg != a.Name {
					t.Errorf("%s(%s:) is not weighed by its %s (listSizes)", key, a.Name, a.Name)
				}
			}
		}
	}
	for key, size := range listSizes {
		typ, field, _ := strings.Cut(key, ".")
		def := schema.Types[typ]
		if def == nil || def.Fields.ForName(field) == nil {
			t.Errorf("listSizes names %s, which the schema does not have", key)
			continue
		}
		if size.arg != "" && def.Fields.ForName(field).Arguments.ForName(size.arg) == nil {
			t.Errorf("listSizes weighs %s by %s, which it does not take", key, size.arg)
		}
	}
}

// clientSizes are the sizes the CLI and the web interface send in the
// variables of their operations (client/client.go maxPage and
// releasePage, cmd/manent logPage; client/audit.go uses maxPage; the web's page sizes and its batches of
// freeze calendars), keyed by "<set> <operation>".
var clientSizes = map[string]map[string]any{
	"CLI ListDeployments":     {"first": 100},
	"CLI GetActivity":         {"first": 0},
	"CLI GetLogs":             {"limit": 1000},
	"CLI ListReleases":        {"first": 50},
	"CLI ListAuditEntries":    {"first": 100},
	"web DeploymentsPage":     {"first": 50},
	"web ReleasesPage":        {"first": 100},
	"web AuditPage":           {"first": 50},
	"web EnvironmentPage":     {"first": 20},
	"web EnvironmentsFreezes": {"environments": make([]any, deploy.MaxFreezeCalendars)},
}

// notSizes are the Int and list variables of the real operations that set
// no size.
var notSizes = map[string]bool{"after": true, "logsAfter": true, "states": true, "failedStates": true, "failureWindowHours": true}

// TestLimitsKeepTheRealOperations measures every operation of the CLI
// (client/*.graphql) and of the web interface (frontend/src/gql/gql.ts)
// with the sizes they send: each stays within the limits, and counts as
// many fields as gqlgen's own count (one per field) says.
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
			vars := clientSizes[name+" "+op.Name]
			for _, v := range op.VariableDefinitions {
				sized := v.Type.Name() == "Int" || v.Type.Elem != nil
				if _, ok := vars[v.Variable]; sized && !ok && !notSizes[v.Variable] {
					t.Errorf("%s %s: $%s is not in clientSizes", name, op.Name, v.Variable)
				}
			}
			fields := fieldsOf(op, doc.Fragments)
			cost := costOfOperation(op, doc.Fragments, vars)
			depth := walker{fragments: doc.Fragments, memo: map[string]int{}, field: depthOf, deepest: true}.selectionSet(op.SelectionSet)
			want := complexity.Calculate(t.Context(), es, op, nil)
			if testing.Verbose() {
				t.Logf("%s %s: %d fields, complexity %d, depth %d", name, op.Name, fields, cost, depth)
			}
			if fields != want || fields > DefaultFieldLimit || cost > DefaultComplexityLimit || depth > DefaultDepthLimit {
				t.Errorf("%s %s: %d fields (gqlgen %d), complexity %d, depth %d", name, op.Name, fields, want, cost, depth)
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
