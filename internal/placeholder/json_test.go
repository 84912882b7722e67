package placeholder

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckJSON(t *testing.T) {
	ok := []any{
		nil,
		"{{ .Application }}",
		map[string]any{"tags": []any{"{{ .Application }}"}, "n": 3, "f": 1.5, "on": true, "none": nil},
		map[string]any{"a": map[string]any{"b": []any{1, "{{ .Params.database }}", []any{"{{ .Version }}"}}}},
		map[any]any{"k": "{{ .Outputs.migrate.applied }}"},
		[]any{uint64(math.MaxUint64), int64(-1), json.Number("1e3")},
	}
	for _, body := range ok {
		if err := CheckJSON(body, scope()); err != nil {
			t.Errorf("CheckJSON(%#v) = %v, want nil", body, err)
		}
	}
	tests := []struct {
		name       string
		body       any
		path, want string
	}{
		{"placeholder in a key", map[string]any{"{{ .Version }}": "x"}, `["{{ .Version }}"]`, "cannot stand in a key"},
		{"placeholder in a nested key", map[string]any{"a": []any{map[string]any{"x{{ .Params.p }}": 1}}}, `.a[0]["x{{ .Params.p }}"]`, "cannot stand in a key"},
		{"unknown placeholder", map[string]any{"a": map[string]any{"b": []any{"ok", "{{ .Nope }}"}}}, ".a.b[1]", "unknown placeholder"},
		{"undeclared parameter", map[string]any{"a.b": "{{ .Params.nope }}"}, `["a.b"]`, `no parameter "nope"`},
		{"function", []any{`{{ printf "%q" .Version }}`}, "[0]", "function printf"},
		{"body string", "{{ .Response.id }}", "", "only in poll.url"},
		{"key not a string", map[any]any{1: "x"}, "", "is not a string"},
		{"NaN", map[string]any{"n": math.NaN()}, ".n", "NaN"},
		{"infinity", []any{math.Inf(1)}, "[0]", "infinite"},
		{"not JSON", map[string]any{"t": struct{}{}}, ".t", "not a JSON value"},
		{"key not UTF-8", map[string]any{"\xff": 1}, `["\\xff"]`, "UTF-8"},
		{"string not UTF-8", []any{"a\xff"}, "[0]", "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckJSON(tt.body, scope())
			var pe *PartError
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &pe) || pe.Path != tt.path {
				t.Fatalf("CheckJSON = %v, want an error at %q with %q", err, tt.path, tt.want)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	body := map[string]any{
		"tags": []any{"{{ .Application }}", "p:{{ .Params.p }}"},
		"n":    3, "on": true, "none": nil,
		"meta": map[any]any{"v": "{{ .Version }}", "dry": "{{ .DryRun }}"},
	}
	tests := []struct {
		name, p string
		want    string // "" for a refusal
	}{
		{"plain", "x", `{"meta":{"dry":"false","v":"1.5.0+build.7"},"n":3,"none":null,"on":true,"tags":["shop","p:x"]}`},
		{"quotes", `"},"admin":true,"x":{"`, `{"meta":{"dry":"false","v":"1.5.0+build.7"},"n":3,"none":null,"on":true,"tags":["shop","p:\"},\"admin\":true,\"x\":{\""]}`},
		{"backslash", `\`, `{"meta":{"dry":"false","v":"1.5.0+build.7"},"n":3,"none":null,"on":true,"tags":["shop","p:\\"]}`},
		{"controls", "a\nb\x00\x1b", `{"meta":{"dry":"false","v":"1.5.0+build.7"},"n":3,"none":null,"on":true,"tags":["shop","p:a\nb\u0000\u001b"]}`},
		{"line separators", "\u2028\u2029", `{"meta":{"dry":"false","v":"1.5.0+build.7"},"n":3,"none":null,"on":true,"tags":["shop","p:\u2028\u2029"]}`},
		{"html", "<a>&", `{"meta":{"dry":"false","v":"1.5.0+build.7"},"n":3,"none":null,"on":true,"tags":["shop","p:<a>&"]}`},
		{"braces", "}}{{ .Version }}", `{"meta":{"dry":"false","v":"1.5.0+build.7"},"n":3,"none":null,"on":true,"tags":["shop","p:}}{{ .Version }}"]}`},
		{"empty", "", `{"meta":{"dry":"false","v":"1.5.0+build.7"},"n":3,"none":null,"on":true,"tags":["shop","p:"]}`},
		{"not UTF-8", "a\xffb", ""},
		{"too long", strings.Repeat("a", maxBody), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JSON(body, values(tt.p))
			if tt.want == "" {
				var pe *PartError
				if !errors.Is(err, ErrRefused) || strings.Contains(tt.name, "UTF") && (!errors.As(err, &pe) || pe.Path != ".tags[1]") {
					t.Fatalf("JSON = %s, %v; want a refusal", got, err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("JSON = %s, %v; want %s", got, err, tt.want)
			}
			var doc map[string]any
			if err := json.Unmarshal(got, &doc); err != nil || doc["tags"].([]any)[1] != "p:"+tt.p {
				t.Fatalf("JSON = %s: %v, not the value as a string", got, err)
			}
		})
	}
}

func TestJSONRefusesWhatCheckRefuses(t *testing.T) {
	for _, body := range []any{
		map[string]any{"{{ .Version }}": 1},
		[]any{"{{ if .DryRun }}x{{ end }}"},
		map[any]any{true: "x"},
		[]any{math.NaN()},
	} {
		if got, err := JSON(body, values("x")); err == nil {
			t.Errorf("JSON(%#v) = %s, want an error", body, got)
		}
	}
	if _, err := JSON([]any{"{{ .Params.other }}"}, values("x")); !errors.Is(err, ErrMissing) {
		t.Errorf("JSON with a missing parameter = %v, want ErrMissing", err)
	}
}

// decoded is what body filled with v decodes to, by the oracle: its strings
// executed by text/template, its numbers float64, its objects
// map[string]any.
func decoded(t *testing.T, body any, v Values) any {
	switch x := body.(type) {
	case string:
		return execute(t, x, v)
	case int:
		return float64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = decoded(t, e, v)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = decoded(t, e, v)
		}
		return out
	}
	return body
}

func FuzzJSON(f *testing.F) {
	for _, seed := range [][3]string{
		{"tags", "{{ .Params.p }}", `"},"admin":true,"x":{"`},
		{"a", "x{{ .Params.p }}y", `\"\\`},
		{"k", "{{ .Application }}", "\x00\n\r\t\u2028\u2029\u202e"},
		{"k", "{{ .Params.p }}", "\xff\xfe"},
		{"{{ .Params.p }}", "v", "x"},
		{"k", "{{ .Params.p }}", "}}{{ .Version }}"},
		{"k", `{{ index .Outputs "post-test" "key" }}`, "]}"},
		{"k", "{{ .Version }}-{{ .DryRun }}", "1.0"},
		{"", "", ""},
		{"0", "{{ .Application }}", ""},
		{"k", "{{ .Params.p }}", strings.Repeat("\"", 2000)},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, key, written, value string) {
		body := map[string]any{
			"list": []any{written, 1, true, nil, []any{written}},
			"n":    1.5,
			key:    map[string]any{"inner": written, "count": 2},
		}
		if CheckJSON(body, scope()) != nil {
			return
		}
		v := fuzzValues(value)
		out, err := JSON(body, v)
		if err != nil {
			if !errors.Is(err, ErrRefused) && !errors.Is(err, ErrMissing) {
				t.Fatalf("JSON(%#v) = %v: not a refused or missing value", body, err)
			}
			// An empty value is missing for a fixed value (.Application).
			if value != "" && utf8.ValidString(value) && len(written) < 1000 {
				t.Fatalf("JSON(%#v) with %q = %v, want it filled", body, value, err)
			}
			return
		}
		var got any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("JSON(%#v) = %s: not JSON: %v", body, out, err)
		}
		if want := decoded(t, body, v); !reflect.DeepEqual(got, want) {
			t.Fatalf("JSON(%#v) = %s, decodes to %#v; want %#v", body, out, got, want)
		}
	})
}
