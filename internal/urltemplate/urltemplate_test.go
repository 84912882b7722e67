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

// hostOpts are the placeholders of a health gate's URL: the target's host
// and port may stand in the host, the rest only in the path and query.
var hostOpts = Options{Fields: []string{"Version", "Target.Path"}, HostFields: []string{"Target.Host", "Target.Port"}}

func TestHostFields(t *testing.T) {
	tests := []struct {
		name, raw string
		values    map[string]string
		want      string
	}{
		{"host", "https://{{ .Target.Host }}/health", map[string]string{"Target.Host": "web-1.example.com"}, "https://web-1.example.com/health"},
		{"host and port", "http://{{ .Target.Host }}:{{ .Target.Port }}/v/{{ .Version }}", map[string]string{"Target.Host": "10.0.0.7", "Target.Port": "8080", "Version": "1.2"}, "http://10.0.0.7:8080/v/1.2"},
		{"IPv6", "http://{{ .Target.Host }}:9000/", map[string]string{"Target.Host": "[::1]"}, "http://[::1]:9000/"},
		{"dotted field in the path", "http://h/{{ .Target.Path }}", map[string]string{"Target.Path": "/srv/app"}, "http://h/%2Fsrv%2Fapp"},
		{"host field in the path is escaped", "http://h/{{ .Target.Host }}", map[string]string{"Target.Host": "a b"}, "http://h/a%20b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := ParseWith(tt.raw, hostOpts)
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

func TestHostFieldsRefused(t *testing.T) {
	for _, raw := range []string{
		"http://{{ .Version }}.example.com/", // only host fields stand in the host
		"http://{{ .Target.Path }}/",
		"{{ .Target.Host }}://h/",
		"http://u@{{ .Target.Host }}/",
		"http://h/{{ .Target.User }}", // not a field of hostOpts
		"http://h/{{ .Target }}",
	} {
		if _, err := ParseWith(raw, hostOpts); err == nil {
			t.Errorf("ParseWith(%q) accepted", raw)
		}
	}
	// Without fields, any action is refused (and none panics).
	for _, raw := range []string{"http://h/{{ if .X }}x{{ end }}", "http://h/{{ .X }}"} {
		if _, err := ParseWith(raw, Options{}); err == nil {
			t.Errorf("ParseWith(%q) without fields accepted", raw)
		}
	}
	// Parse has no host fields: the health checks' URLs are unchanged.
	if _, err := Parse("https://{{ .Version }}/x", []string{"Version"}); err == nil {
		t.Error("Parse accepted a placeholder in the host")
	}
}

func TestRenderChecksHostValues(t *testing.T) {
	tpl, err := ParseWith("http://{{ .Target.Host }}:{{ .Target.Port }}/health", hostOpts)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []map[string]string{
		{"Target.Host": "evil.example/x?", "Target.Port": "80"},
		{"Target.Host": "user@evil.example", "Target.Port": "80"},
		{"Target.Host": "h", "Target.Port": "http"},
		{"Target.Host": "h"},
	} {
		if got, err := tpl.Render(v); err == nil {
			t.Errorf("Render(%v) = %q, want an error", v, got)
		}
	}
}
