package yamltree_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/internal/yamltree"
)

type item struct {
	Name    string        `yaml:"name"`
	Enabled bool          `yaml:"enabled"`
	Count   *int          `yaml:"count"`
	Small   int8          `yaml:"small"`
	Wait    time.Duration `yaml:"wait"`
	Size    int64         `yaml:"size,bytes"`
	Ratio   *float64      `yaml:"ratio"`
}

func (i *item) SetDefaults() { i.Enabled = true }

type doc struct {
	Items  []item            `yaml:"items"`
	Labels map[string]string `yaml:"labels"`
	Nested [][][]string      `yaml:"nested"`
	Hidden string
}

func decode(t *testing.T, text string) (doc, []string) {
	t.Helper()
	root, fields := yamltree.Parse([]byte(text), 1<<20)
	var d doc
	var errs yamltree.Errors
	if fields == nil && root != nil {
		yamltree.Decode(root, "", &d, &errs)
	}
	var out []string
	for _, f := range append(fields, errs.List()...) {
		out = append(out, f.String())
	}
	return d, out
}

func TestDecode(t *testing.T) {
	three := 3
	quarter, threeF := 0.25, 3.0
	tests := []struct {
		name string
		text string
		want doc
		errs []string
	}{
		{
			name: "defaults, pointers, durations and sizes",
			text: "items: [{name: a, count: 3, wait: 1m30s, size: 2KiB}, {name: b, enabled: false, small: 7, size: 10}]\n",
			want: doc{Items: []item{
				{Name: "a", Enabled: true, Count: &three, Wait: 90 * time.Second, Size: 2048},
				{Name: "b", Small: 7, Size: 10},
			}},
		},
		{
			name: "JSON keeps duplicate keys for the decoder to report",
			text: `{"labels": {"a": "1", "a": "2"}, "items": [{"name": 1.5}]}`,
			want: doc{Labels: map[string]string{"a": "1"}, Items: []item{{Name: "1.5", Enabled: true}}},
			errs: []string{"labels.a: duplicate key"},
		},
		{
			name: "wrong types and range",
			text: "items: [{small: 300, count: x, wait: 5, size: lots, enabled: 1}]\nHidden: x\nlabels: [a]\n",
			want: doc{Items: []item{{Enabled: true}}},
			errs: []string{
				"items[0].small: must be an integer",
				"items[0].count: must be an integer",
				"items[0].wait: must be a duration such as 500ms, 30s, 10m or 1h",
				"items[0].size: must be a size such as 1073741824, 512MiB or 1GiB",
				"items[0].enabled: must be true or false",
				"Hidden: unknown field",
				"labels: must be a mapping",
			},
		},
		{
			name: "numbers take integers and finite decimals",
			text: "items: [{ratio: 0.25}, {ratio: 3}, {ratio: .nan}, {ratio: .inf}, {ratio: \"0.5\"}, {ratio: [1]}]\n",
			want: doc{Items: []item{
				{Enabled: true, Ratio: &quarter}, {Enabled: true, Ratio: &threeF},
				{Enabled: true}, {Enabled: true}, {Enabled: true}, {Enabled: true},
			}},
			errs: []string{
				"items[2].ratio: must be a number",
				"items[3].ratio: must be a number",
				"items[4].ratio: must be a number",
				"items[5].ratio: must be a number",
			},
		},
		{
			name: "non-string keys",
			text: "labels: {[a]: b}\n",
			want: doc{Labels: map[string]string{}},
			errs: []string{"labels: keys must be strings"},
		},
		{
			name: "binary and custom tags are not strings",
			text: "labels: {a: !!binary aGk=, b: !x y}\n",
			want: doc{Labels: map[string]string{"a": "", "b": ""}},
			errs: []string{"labels.a: must be a string", "labels.b: must be a string"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := decode(t, tt.text)
			if !reflect.DeepEqual(errs, tt.errs) {
				t.Errorf("errors %q, want %q", errs, tt.errs)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestAliasBombIsBounded(t *testing.T) {
	text := "a: &a [x,x,x,x,x,x,x,x,x,x]\n"
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		text += name + ": &" + name + " [" + strings.Repeat("*"+prev+",", 10) + "]\n"
		prev = name
	}
	text += "nested: [*i]\n"
	root, fields := yamltree.Parse([]byte(text), 1<<20)
	if fields != nil {
		t.Fatal(fields)
	}
	var v struct {
		Nested [][][][][][][][][][]string `yaml:"nested"`
	}
	var errs yamltree.Errors
	yamltree.Decode(root, "", &v, &errs)
	found := false
	for _, f := range errs.List() {
		found = found || strings.HasPrefix(f.Message, "document is too complex")
	}
	if !found {
		t.Errorf("a 10^9-value expansion was not stopped: %v", errs.List())
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, text, want string
		empty            bool
	}{
		{name: "empty", text: "", empty: true},
		{name: "comment only", text: "# x\n", empty: true},
		{name: "null", text: "~\n", empty: true},
		{name: "JSON null", text: " null", empty: true},
		{name: "too large", text: strings.Repeat("a", 11), want: "document is larger than 10 bytes"},
		{name: "two documents", text: "a: 1\n---\nb: 2\n", want: "only one document is allowed (found a second one after ---)"},
		{name: "JSON too deep", text: strings.Repeat("[", 70) + strings.Repeat("]", 70), want: "syntax error: nested deeper than 64 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit := 1 << 20
			if tt.name == "too large" {
				limit = 10
			}
			root, fields := yamltree.Parse([]byte(tt.text), limit)
			if tt.empty {
				if root != nil || fields != nil {
					t.Fatalf("got %v, %v; want nothing", root, fields)
				}
				return
			}
			if len(fields) != 1 || fields[0].Message != tt.want {
				t.Fatalf("got %v, want %q", fields, tt.want)
			}
		})
	}
}

func TestPaths(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{yamltree.Key("", "labels"), "labels"},
		{yamltree.Key("labels", "app.kubernetes.io/name"), "labels.app.kubernetes.io/name"},
		{yamltree.Key("labels", "a b"), `labels["a b"]`},
		{yamltree.Key("", ""), `[""]`},
		{yamltree.Index("deploy.targets", 2) + ".path", "deploy.targets[2].path"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1024": 1024, "1KiB": 1024, "512MiB": 512 << 20, "1GiB": 1 << 30, "100MB": 100e6, "5 B": 5} {
		if got, err := yamltree.ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5GiB", "GiB", "9999999999999GiB", "1 PB"} {
		if _, err := yamltree.ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}
