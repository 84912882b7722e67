package itsm

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestJSONPath(t *testing.T) {
	dec := json.NewDecoder(strings.NewReader(`{
		"result": {"sys_id": "abc", "number": "CHG0001", "n": 42, "ok": true, "none": null},
		"items": [{"id": "first"}, {"id": "second", "tags": ["x", "y"]}],
		"a.b": {"c": "dotted"},
		"q\"uote": "quoted",
		"it's": "single",
		"top": [["nested"]]
	}`))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path  string
		want  string
		found bool
		bad   bool
	}{
		{path: "$.result.sys_id", want: "abc", found: true},
		{path: "$.result.number", want: "CHG0001", found: true},
		{path: "$.result.n", want: "42", found: true},
		{path: "$.result.ok", want: "true", found: true},
		{path: "$.result.none", want: "", found: true},
		{path: "$.items[0].id", want: "first", found: true},
		{path: "$.items[1].tags[1]", want: "y", found: true},
		{path: `$["a.b"].c`, want: "dotted", found: true},
		{path: `$['a.b']["c"]`, want: "dotted", found: true},
		{path: `$["q\"uote"]`, want: "quoted", found: true},
		{path: `$['it\'s']`, want: "single", found: true},
		{path: "$.top[0][0]", want: "nested", found: true},
		{path: "$.result.missing"},
		{path: "$.items[2].id"},
		{path: "$.items.id"},
		{path: "$.result[0]"},
		{path: "$.result.sys_id.deeper"},
		{path: "$.a.b"},
		{path: "result.sys_id", bad: true},
		{path: "", bad: true},
		{path: "$.", bad: true},
		{path: "$..a", bad: true},
		{path: "$.a[", bad: true},
		{path: "$.a[-1]", bad: true},
		{path: "$.a[+1]", bad: true},
		{path: "$.a[x]", bad: true},
		{path: `$["a"`, bad: true},
		{path: `$["a"x]`, bad: true},
		{path: "$x", bad: true},
		{path: "$.a b", bad: true},
	}
	for _, tt := range tests {
		p, err := parseJSONPath(tt.path)
		if tt.bad {
			if err == nil {
				t.Errorf("%s: parsed, want an error", tt.path)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		v, found := p.lookup(doc)
		if found != tt.found {
			t.Errorf("%s: found=%v, want %v", tt.path, found, tt.found)
			continue
		}
		if !found {
			continue
		}
		if got, ok := scalarString(v); !ok || got != tt.want {
			t.Errorf("%s: got %q (scalar %v), want %q", tt.path, got, ok, tt.want)
		}
	}
}

func TestJSONPathRoot(t *testing.T) {
	p, err := parseJSONPath("$")
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := p.lookup("whole"); !ok || v != "whole" {
		t.Fatalf("$ on a scalar document: %v %v", v, ok)
	}
}
