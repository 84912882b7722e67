package main

import (
	"strings"
	"testing"
)

func TestWithDryRun(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		refused bool
	}{
		{name: "added", in: "# keep me\napplication: hello\n", want: []string{"# keep me", "application: hello", "dryRun: true"}},
		{name: "replaced", in: "dryRun: false\napplication: hello\n", want: []string{"dryRun: true\napplication: hello"}},
		{name: "json", in: `{"application": "hello", "deploy": {"targets": []}}`, want: []string{"application: hello", "dryRun: true"}},
		{name: "not a mapping", in: "- a\n- b\n", refused: true},
		{name: "not yaml", in: "a: [\n", refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := withDryRun([]byte(tt.in))
			if tt.refused {
				if msg, code := humanize(err); code != exitRefused || !strings.Contains(msg, "--dry-run") {
					t.Fatalf("err = %v (exit %d)", err, code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Count(string(out), "dryRun") != 1 {
				t.Errorf("dryRun set more than once:\n%s", out)
			}
		})
	}
}
