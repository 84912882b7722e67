package yamltree_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/internal/yamltree"
)

type body struct {
	JSON any `yaml:"json"`
}

func decodeBody(t *testing.T, text string) (any, []string) {
	t.Helper()
	root, fields := yamltree.Parse([]byte(text), 1<<20)
	if fields != nil {
		t.Fatalf("Parse: %v", fields)
	}
	var b body
	var errs yamltree.Errors
	yamltree.Decode(root, "", &b, &errs)
	var out []string
	for _, f := range errs.List() {
		out = append(out, f.String())
	}
	return b.JSON, out
}

// An any field holds what encoding/json would give back after a round
// trip, so a stored copy of the configuration compares equal to it.
func TestDecodeJSONValue(t *testing.T) {
	got, errs := decodeBody(t, `json:
  tags: ["{{ .Application }}", 1, 2.5, 1e3, .5, -0.0, 0x10, true, null, 2026-01-02]
  nested: {a: {b: []}}
  empty: {}
`)
	if errs != nil {
		t.Fatalf("errors: %v", errs)
	}
	want := map[string]any{
		"tags":   []any{"{{ .Application }}", 1.0, 2.5, 1000.0, 0.5, 0.0, 16.0, true, nil, "2026-01-02"},
		"nested": map[string]any{"a": map[string]any{"b": []any{}}},
		"empty":  map[string]any{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var back any
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, got) {
		t.Fatalf("a JSON round trip changed the value:\n%#v\n%#v", back, got)
	}
}

func TestDecodeJSONValueRefuses(t *testing.T) {
	tests := map[string]string{
		"json: {n: 12345678901234567890}":   "json.n: must be a finite number",
		"json: {n: 9007199254740993}":       "json.n: must be a finite number",
		"json: {n: 0.10000000000000000001}": "json.n: must be a finite number",
		"json: [.inf]":                      "json[0]: must be a finite number",
		"json: [.nan]":                      "json[0]: must be a finite number",
		"json: {? [a]: 1}":                  "json: keys must be strings",
		"json: !!binary aGVsbG8=":           "json: must be a string, a number",
	}
	for text, want := range tests {
		t.Run(text, func(t *testing.T) {
			_, errs := decodeBody(t, text)
			if len(errs) != 1 || !strings.HasPrefix(errs[0], want) {
				t.Fatalf("errors = %v, want one starting with %q", errs, want)
			}
		})
	}
}
