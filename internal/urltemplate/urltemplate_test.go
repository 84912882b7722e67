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
		{"the last port", "http://h:65535/health", nil, "http://h:65535/health"},
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
		"http://h:0/x",
		"http://h:65536/x",
		"https://h:99999/{{ .Version }}",
		"http://[::1]:0/x",
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

var targetFields = []string{"Version", "Target.Host", "Target.Port", "Target.Path"}

var hostFields = []string{"Target.Host", "Target.Port"}

func TestParseHostRenders(t *testing.T) {
	tests := []struct {
		name, raw string
		values    map[string]string
		want      string
	}{
		{"host and port", "https://{{ .Target.Host }}:{{ .Target.Port }}/health", map[string]string{"Target.Host": "web-1.example.com", "Target.Port": "8443"}, "https://web-1.example.com:8443/health"},
		{"host without a path", "http://{{ .Target.Host }}", map[string]string{"Target.Host": "10.0.0.7"}, "http://10.0.0.7"},
		{"an IPv6 host is bracketed", "http://{{ .Target.Host }}:{{ .Target.Port }}/", map[string]string{"Target.Host": "::1", "Target.Port": "80"}, "http://[::1]:80/"},
		{"brackets written by the template", "http://[{{ .Target.Host }}]/", map[string]string{"Target.Host": "fd00::7"}, "http://[fd00::7]/"},
		{"part of a host name", "http://{{ .Target.Host }}.internal:9100/", map[string]string{"Target.Host": "web-1"}, "http://web-1.internal:9100/"},
		{"a host field in the path is escaped", "http://h/{{ .Target.Host }}/{{ .Target.Path }}", map[string]string{"Target.Host": "a b", "Target.Path": "/srv/app"}, "http://h/a%20b/%2Fsrv%2Fapp"},
		{"query after the host", "http://{{ .Target.Host }}?v={{ .Version }}", map[string]string{"Target.Host": "h", "Version": "1&2"}, "http://h?v=1%262"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := ParseHost(tt.raw, targetFields, hostFields)
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

func TestParseHostRefuses(t *testing.T) {
	for _, raw := range []string{
		"http://{{ .Version }}/",                    // not a host field
		"http://h/{{ .Target.Port",                  // unclosed
		"{{ .Target.Host }}://h/",                   // in the scheme
		"http{{ .Target.Host }}://h/",               // in the scheme
		"http://user@{{ .Target.Host }}/",           // credentials
		"http://{{ .Target.User }}@h/",              // unknown field, and credentials
		"http://{{ .Target }}/",                     // not a field of the list
		"ftp://{{ .Target.Host }}/",                 // scheme
		"http://{{ .Target.Host }}:{{ .Version }}/", // a port from a non-host field
		"http://{{ .Target.Host }}:0/",              // a literal port out of range
		"http://{{ .Target.Host }}:70000/",          // a literal port out of range
	} {
		if _, err := ParseHost(raw, targetFields, hostFields); err == nil {
			t.Errorf("ParseHost(%q) accepted", raw)
		}
	}
	// Without hostFields, a host field stays out of the host.
	if _, err := Parse("http://{{ .Target.Host }}/", targetFields); err == nil {
		t.Error("Parse accepted a placeholder in the host")
	}
}

// TestRenderRefusesValuesLeavingTheHost: a value in the host or the port
// can never add user info, a path, a query or another host.
func TestRenderRefusesValuesLeavingTheHost(t *testing.T) {
	tpl, err := ParseHost("http://{{ .Target.Host }}:{{ .Target.Port }}/health", targetFields, hostFields)
	if err != nil {
		t.Fatal(err)
	}
	part, err := ParseHost("http://{{ .Target.Host }}.internal/", targetFields, hostFields)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		tpl        *Template
		host, port string
	}{
		{"user info", tpl, "evil@h", "80"},
		{"a path", tpl, "h/x", "80"},
		{"a query", tpl, "h?x", "80"},
		{"a fragment", tpl, "h#x", "80"},
		{"a second port", tpl, "h:81", "80"},
		{"a space", tpl, "h x", "80"},
		{"an IPv6 zone", tpl, "fe80::1%eth0", "80"},
		{"a leading dot", tpl, ".h", "80"},
		{"a percent", tpl, "h%2f", "80"},
		{"an empty host", tpl, "", "80"},
		{"port 0", tpl, "h", "0"},
		{"port too large", tpl, "h", "65536"},
		{"port with a sign", tpl, "h", "+80"},
		{"port with a path", tpl, "h", "80/x"},
		{"no port", tpl, "h", ""},
		{"IPv6 inside a host name", part, "fd00::1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.tpl.Render(map[string]string{"Target.Host": tt.host, "Target.Port": tt.port})
			if err == nil {
				t.Fatalf("Render(%q, %q) = %q, want an error", tt.host, tt.port, got)
			}
		})
	}
}

// HostIs tells a URL whose host is a target's own from one whose writer
// chose the host, or a part of it.
func TestHostIs(t *testing.T) {
	tests := []struct {
		raw  string
		want bool
	}{
		{"https://{{ .Target.Host }}/health", true},
		{"https://{{.Target.Host}}:8080/health", true},
		{"http://{{ .Target.Host }}:{{ .Target.Port }}/health?v={{ .Version }}", true},
		{"http://{{ .Target.Host }}", true},
		{"http://{{ .Target.Host }}?x=1", true},
		{"http://[{{ .Target.Host }}]:8080/", true},
		{"https://{{ .Target.Host }}.evil.example/h", false},
		{"https://a{{ .Target.Host }}/h", false},
		{"https://a.{{ .Target.Host }}/h", false},
		{"https://10.0.0.5:8500/{{ .Target.Host }}", false},
		{"https://10.0.0.5:{{ .Target.Port }}/", false},
		{"https://10.0.0.5:8500/v1/kv", false},
		{"http://{{ .Target.Host }}{{ .Target.Port }}/", false},
		{"http://{{ .Target.Port }}/", false},
	}
	for _, tt := range tests {
		tpl, err := ParseHost(tt.raw, targetFields, hostFields)
		if err != nil {
			if tt.want {
				t.Errorf("ParseHost(%q): %v", tt.raw, err)
			}
			continue
		}
		if got := tpl.HostIs("Target.Host"); got != tt.want {
			t.Errorf("HostIs(%q) = %v, want %v", tt.raw, got, tt.want)
		}
	}
}
