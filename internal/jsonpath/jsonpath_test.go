package jsonpath_test

import (
	"encoding/json"
	"strings"
	"testing"

	"manent.dev/manent/internal/jsonpath"
)

func TestParseAndLookup(t *testing.T) {
	dec := json.NewDecoder(strings.NewReader(`{"result": {"id": "p-1", "n": 42, "items": [{"x": 1}, {"x": 2}]},
		"a.b": "dotted", "it's": "quoted", "k-1": true, "e": null, "q\"uote": "dq", "nl\n": "escaped"}`))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path  string
		want  any
		found bool
	}{
		{"$.result.id", "p-1", true},
		{"$.result.n", json.Number("42"), true},
		{"$.result.items[1].x", json.Number("2"), true},
		{"$.result.items[-1].x", json.Number("2"), true},
		{`$["result"]['id']`, "p-1", true},
		{`$["a.b"]`, "dotted", true},
		{`$['it\'s']`, "quoted", true},
		{`$["q\"uote"]`, "dq", true},
		{`$["nl\n"]`, "escaped", true},
		{`$["k-1"]`, true, true},
		{`$.e`, nil, true},
		{`$.result.items[2]`, nil, false},
		{`$.result.items[-3]`, nil, false},
		{`$.result.id.more`, nil, false},
		{`$.result[0]`, nil, false},
		{`$.result.items.x`, nil, false},
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
	p, err := jsonpath.Parse("$")
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := p.Lookup("whole"); !ok || v != "whole" {
		t.Fatalf("$ on a scalar document: %v %v", v, ok)
	}
	if v, ok := (jsonpath.Path{}).Lookup(doc); ok {
		t.Fatalf("the zero Path names %v", v)
	}
}

func TestParseRefuses(t *testing.T) {
	const notOne = "must name one value"
	tests := map[string]string{
		"result.id":                     "must start with $",
		"":                              "must start with $",
		"$..id":                         notOne,
		"$.*":                           notOne,
		"$[*]":                          notOne,
		"$.a[0:2]":                      notOne,
		"$[?@.x]":                       notOne,
		"$['a','b']":                    notOne,
		"$.1a":                          "is not a JSON path",
		"$.k-1":                         "is not a JSON path",
		"$[01]":                         "is not a JSON path",
		"$[+1]":                         "is not a JSON path",
		`$["a"`:                         "is not a JSON path",
		`$["a]`:                         "is not a JSON path",
		"$.a b":                         "is not a JSON path",
		"$.":                            "is not a JSON path",
		"$x":                            "is not a JSON path",
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
