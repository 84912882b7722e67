package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// hostileIntrospection is the query of the report: 100 aliases of __schema over a fragment of 100
// aliased __Type.fields, 4.7 KB that answered 105 MB after 86 s.
func hostileIntrospection() string {
	var b strings.Builder
	b.WriteString("query {")
	for i := range 100 {
		fmt.Fprintf(&b, " s%d: __schema { ...S }", i)
	}
	b.WriteString(" }\nfragment S on __Schema { types { ...T } }\nfragment T on __Type {")
	for i := range 100 {
		fmt.Fprintf(&b, " f%d: fields { name }", i)
	}
	b.WriteString(" }\n")
	return b.String()
}

// TestIntrospectionIsBounded runs the whole server with the default
// server.introspection: an oversized introspection is refused before it
// runs whoever sends it, a read-only token included; the standard
// introspection query of GraphQL tools is answered to an administrator
// alone.
func TestIntrospectionIsBounded(t *testing.T) {
	configPath, _ := demoConfig(t)
	srv := startServer(t, configPath)
	standard, err := os.ReadFile("../graph/testdata/introspection.graphql")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, token, query string
		// code is the refusal's; "" means the schema is answered.
		code string
	}{
		{name: "hostile from a read-only token", token: "viewer", query: hostileIntrospection(), code: "COMPLEXITY_LIMIT_EXCEEDED"},
		{name: "hostile from an administrator", token: "admin", query: hostileIntrospection(), code: "COMPLEXITY_LIMIT_EXCEEDED"},
		{name: "standard from an administrator", token: "admin", query: string(standard)},
		{name: "standard from a read-only token", token: "viewer", query: string(standard), code: "FORBIDDEN"},
		{name: "standard from a deployer", token: "ci", query: string(standard), code: "FORBIDDEN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The deadline only bounds a failure: a refusal takes milliseconds.
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			got := askGraphQLContext(ctx, t, srv, demoTokens[tt.token], tt.query)
			var body struct {
				Data   json.RawMessage `json:"data"`
				Errors []struct {
					Message    string `json:"message"`
					Extensions struct {
						Code string `json:"code"`
					} `json:"extensions"`
				} `json:"errors"`
			}
			if err := json.Unmarshal([]byte(got.body), &body); err != nil {
				t.Fatalf("decode %.300s: %v", got.body, err)
			}
			if tt.code == "" {
				if got.status != 200 || len(body.Errors) > 0 || !strings.Contains(string(body.Data), `"queryType":{"name":"Query"`) {
					t.Fatalf("got %d %.300s, want the schema", got.status, got.body)
				}
				return
			}
			if len(body.Errors) != 1 || body.Errors[0].Extensions.Code != tt.code || string(body.Data) != "null" {
				t.Fatalf("got %d %.300s, want one %s and no data", got.status, got.body, tt.code)
			}
			if len(got.body) > 512 {
				t.Errorf("the refusal is %d bytes", len(got.body))
			}
		})
	}
}
