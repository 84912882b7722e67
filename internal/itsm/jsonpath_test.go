package itsm

import (
	"encoding/json"
	"strings"
	"testing"

	"manent.dev/manent/internal/jsonpath"
)

// TestAnswerPaths reads the fields of an ITSM's answer as the connector
// does: through internal/jsonpath, then scalarString.
func TestAnswerPaths(t *testing.T) {
	dec := json.NewDecoder(strings.NewReader(`{
		"result": {"sys_id": "abc", "number": "CHG0001", "n": 42, "ok": true, "none": null, "obj": {}},
		"items": [{"id": "first"}, {"id": "second", "tags": ["x", "y"]}],
		"a.b": {"c": "dotted"},
		"top": [["nested"]]
	}`))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path   string
		want   string
		found  bool
		scalar bool
	}{
		{path: "$.result.sys_id", want: "abc", found: true, scalar: true},
		{path: "$.result.number", want: "CHG0001", found: true, scalar: true},
		{path: "$.result.n", want: "42", found: true, scalar: true},
		{path: "$.result.ok", want: "true", found: true, scalar: true},
		{path: "$.result.none", want: "", found: true, scalar: true},
		{path: "$.result.obj", found: true},
		{path: "$.items[1].tags[1]", want: "y", found: true, scalar: true},
		{path: "$.items[-1].id", want: "second", found: true, scalar: true},
		{path: `$["a.b"].c`, want: "dotted", found: true, scalar: true},
		{path: "$.top[0][0]", want: "nested", found: true, scalar: true},
		{path: "$.result.missing"},
		{path: "$.items[2].id"},
		{path: "$.a.b"},
	}
	for _, tt := range tests {
		p, err := jsonpath.Parse(tt.path)
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		v, found := p.Lookup(doc)
		if found != tt.found {
			t.Errorf("%s: found=%v, want %v", tt.path, found, tt.found)
			continue
		}
		if !found {
			continue
		}
		if got, ok := scalarString(v); ok != tt.scalar || got != tt.want {
			t.Errorf("%s: got %q (scalar %v), want %q (scalar %v)", tt.path, got, ok, tt.want, tt.scalar)
		}
	}
}

// TestConfigRefusesPaths: a path that names more than one value, or is no
// JSON path, is refused when the connector is configured.
func TestConfigRefusesPaths(t *testing.T) {
	for _, p := range []string{"result.sys_id", "$..sys_id", "$.items[*].id", "$.a[", "$.a b"} {
		v := &validator{}
		v.jsonPath("open.id_path", p, true)
		if len(v.errs) != 1 || v.errs[0].Path != "open.id_path" {
			t.Errorf("%q: errors %+v, want one at open.id_path", p, v.errs)
		}
	}
}
