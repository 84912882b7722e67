package jsonpath_test

import (
	"encoding/json"
	"strings"
	"testing"

	"manent.dev/manent/internal/jsonpath"
)

func TestParseAndLookup(t *testing.T) {
	var doc any
	if err := json.Unmarshal([]byte(`{"result": {"id": "p-1", "items": [{"x": 1}, {"x": 2}]},
		"a.b": "dotted", "it's": "quoted", "k-1": true, "e": null}`), &doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path  string
		want  any
		found bool
	}{
		{"$.result.id", "p-1", true},
		{"$.result.items[1].x", 2.0, true},
		{`$["a.b"]`, "dotted", true},
		{`$['it\'s']`, "quoted", true},
		{`$.k-1`, true, true},
		{`$.e`, nil, true},
		{`$.result.items[2]`, nil, false},
		{`$.result.id.more`, nil, false},
		{`$.result[0]`, nil, false},
		{`$.missing`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p, err := jsonpath.Parse(tt.path)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got, found := p.Lookup(doc)
			if found != tt.found || got != tt.want {
				t.Fatalf("Lookup = %v, %v; want %v, %v", got, found, tt.want, tt.found)
			}
			if p.String() != tt.path {
				t.Fatalf("String = %q", p.String())
			}
		})
	}
	if p, _ := jsonpath.Parse("$"); p.String() != "$" {
		t.Fatal("$ alone is the whole response")
	}
}

func TestParseRefuses(t *testing.T) {
	tests := map[string]string{
		"result.id":                     "must start with $",
		"$..id":                         "byte 2: expected a member name",
		"$.*":                           "byte 2: expected a member name",
		"$.1a":                          "byte 2: expected a member name",
		"$[-1]":                         "byte 2: expected an index",
		"$[01]":                         "leading zeros",
		"$[?(@.x)]":                     "byte 2: expected an index",
		`$["a"`:                         "expected ] after the quoted name",
		`$["a]`:                         "not closed",
		`$["a\n"]`:                      `\ escapes only`,
		"$.a b":                         "byte 3: expected . or [",
		"$" + strings.Repeat(".a", 300): "longer than 512 bytes",
	}
	for path, want := range tests {
		t.Run(path, func(t *testing.T) {
			_, err := jsonpath.Parse(path)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("Parse(%q) = %v, want an error with %q", path, err, want)
			}
		})
	}
}
