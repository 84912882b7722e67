package urltemplate

import (
	"strings"
	"testing"
)

var fields = []string{"Version", "Application"}

func TestParseAndRender(t *testing.T) {
	tests := []struct {
		name, raw string
		values    map[string]string
		want      string
	}{
		{"no placeholder", "http://127.0.0.1:8080/health", nil, "http://127.0.0.1:8080/health"},
		{"in the path", "http://h/releases/{{ .Version }}/index.html", map[string]string{"Version": "1.0.0"}, "http://h/releases/1.0.0/index.html"},
		{"escaped in the path", "http://h/r/{{.Version}}", map[string]string{"Version": "a/b c"}, "http://h/r/a%2Fb%20c"},
		{"escaped in the query", "http://h/x?v={{ .Version }}&a={{ .Application }}", map[string]string{"Version": "1&2", "Application": "web"}, "http://h/x?v=1%262&a=web"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := Parse(tt.raw, fields)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tpl.Render(tt.values)
			if err != nil || got != tt.want {
				t.Fatalf("Render = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, raw := range []string{
		"http://{{ .Application }}.example.com/",
		"{{ .Version }}://h/",
		"http://h/{{ .Secret }}",
		"http://h/{{ .Version | printf \"%s\" }}",
		"http://h/{{ if .Version }}x{{ end }}",
		"http://h/{{ .Version",
		"ftp://h/x",
		"http://user:pw@h/x",
		"not a url",
	} {
		if _, err := Parse(raw, fields); err == nil {
			t.Errorf("Parse(%q) accepted", raw)
		}
	}
}

func TestRenderRefusesDotSegments(t *testing.T) {
	tpl, err := Parse("http://h/r/{{ .Version }}/x", fields)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{".", "..", ""} {
		if got, err := tpl.Render(map[string]string{"Version": v}); err == nil {
			t.Errorf("Render(%q) = %q, want an error", v, got)
		}
	}
	if _, err := tpl.Render(nil); err == nil || !strings.Contains(err.Error(), "Version") {
		t.Errorf("missing value: %v", err)
	}
}
