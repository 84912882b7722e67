package placeholder

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestCheckURL(t *testing.T) {
	ok := []string{
		"https://api.cdn.example.com/zones/{{ .Params.p }}/purge",
		"https://h.example/x?v={{ .Version }}&a=b",
		"https://h.example/x?v=pre-{{ .Version }}-post",
		"https://h.example:8443/a/{{ .Version }}",
		"https://[::1]:8443/{{ .Version }}",
		"https://h.example?x={{ .Version }}",
		"https://h.example/v{{ .Version }}.tgz",
		"https://h.example/{{ .Application }}-{{ .Environment }}",
		"https://h.example/a%20b/{{ .Version }}#top",
		"https://h.example/@scope/{{ .Version }}",
		"https://h.example",
	}
	for _, text := range ok {
		if err := CheckURL(text, scope(), false); err != nil {
			t.Errorf("CheckURL(%q) = %v, want nil", text, err)
		}
	}
	tests := []struct{ text, want string }{
		{"https://{{ .Application }}.example.com/", "cannot stand in the scheme, the host or the port"},
		{"https://h.example{{ .Params.p }}", "cannot stand in the scheme, the host or the port"},
		{"https://h.example:{{ .Params.p }}/", "cannot stand in the scheme, the host or the port"},
		{"https://u:{{ .Params.p }}@h.example/", "cannot stand in the scheme, the host or the port"},
		{"{{ .Params.p }}", "cannot stand in the scheme, the host or the port"},
		{"{{ .Params.p }}://h.example/", "cannot stand in the scheme, the host or the port"},
		{"https://h.example/?{{ .Params.p }}=1", "name of a query parameter"},
		{"https://h.example/?a=1&{{ .Params.p }}", "name of a query parameter"},
		{"https://h.example/?a=1&b{{ .Params.p }}=2", "name of a query parameter"},
		{"https://h.example/#{{ .Params.p }}", "fragment"},
		{"https://h.example/?a=#x{{ .Params.p }}", "fragment"},
		{"http://h.example/x", "must use https"},
		{"ftp://h.example/x", "must be absolute"},
		{"/relative/path", "must be absolute"},
		{"https:///path", "must be absolute"},
		{"mailto:ops@h.example", "must be absolute"},
		{"HTTPS://h.example/", "lower case"},
		{"https://user:pw@h.example/x", "user info"},
		{"https://h.example/a b", "a space at byte 19"},
		{`https://h.example\@evil.example/`, `"\\" at byte 17`},
		{"https://h.example/%zz", "not followed by two hex digits"},
		{"https://h.example/%2", "not followed by two hex digits"},
		{"https://h.example/{{ .Version }}/a b", "a space at byte 34"},
		{"https://h.example/é", `byte \xc3`},
		{"https://h.example/a\nb", `byte \x0a`},
		{"https://h.example/{{ .Nope }}", "unknown placeholder"},
		{"https://h.example/{{ .Params.nope }}", `no parameter "nope"`},
		{"https://h.example/{{ .Response.id }}", "only in poll.url"},
		{"https://h.example/{{ .Version | html }}", "pipeline"},
	}
	for _, tt := range tests {
		err := CheckURL(tt.text, scope(), false)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckURL(%q) = %v, want an error with %q", tt.text, err, tt.want)
		}
	}
	if err := CheckURL("http://127.0.0.1:8080/{{ .Version }}", scope(), true); err != nil {
		t.Errorf("CheckURL(http, allowHTTP) = %v, want nil", err)
	}
	if err := CheckURL("https://h.example/{{ .Response.result.id }}", Scope{Response: true}, false); err != nil {
		t.Errorf("CheckURL(.Response in scope) = %v, want nil", err)
	}
}

func TestURL(t *testing.T) {
	const written = "https://api.example.com/zones/{{ .Params.p }}/purge?tag={{ .Params.p }}&x=1"
	tests := []struct {
		name, p string
		want    string // "" for a refusal
	}{
		{"plain", "0f3a9c", "https://api.example.com/zones/0f3a9c/purge?tag=0f3a9c&x=1"},
		{"slash", "a/b", "https://api.example.com/zones/a%2Fb/purge?tag=a%2Fb&x=1"},
		{"query and fragment", "a?b#c", "https://api.example.com/zones/a%3Fb%23c/purge?tag=a%3Fb%23c&x=1"},
		{"parameters", "1&admin=true", "https://api.example.com/zones/1%26admin%3Dtrue/purge?tag=1%26admin%3Dtrue&x=1"},
		{"space and plus", "a b+c", "https://api.example.com/zones/a%20b%2Bc/purge?tag=a%20b%2Bc&x=1"},
		{"percent", "%41", "https://api.example.com/zones/%2541/purge?tag=%2541&x=1"},
		{"unicode", "é", "https://api.example.com/zones/%C3%A9/purge?tag=%C3%A9&x=1"},
		{"braces", "}}{{ .Version }}", "https://api.example.com/zones/%7D%7D%7B%7B%20.Version%20%7D%7D/purge?tag=%7D%7D%7B%7B%20.Version%20%7D%7D&x=1"},
		{"dots inside", "1..2", "https://api.example.com/zones/1..2/purge?tag=1..2&x=1"},
		{"unreserved", "a-b.c_d~e", "https://api.example.com/zones/a-b.c_d~e/purge?tag=a-b.c_d~e&x=1"},
		{"dot", ".", ""},
		{"dot dot", "..", ""},
		{"traversal", "../admin", ""},
		{"backslash traversal", `..\admin`, ""},
		{"encoded dot dot", "%2e%2e", ""},
		{"encoded upper", "%2E%2E", ""},
		{"half encoded", ".%2e", ""},
		{"double encoded", "%252e%252e", ""},
		{"encoded traversal", "%2e%2e%2fadmin", ""},
		{"encoded slash traversal", "x%2F..%2Fadmin", ""},
		{"parameter in a value", "v1;rev=2", "https://api.example.com/zones/v1%3Brev%3D2/purge?tag=v1%3Brev%3D2&x=1"},
		{"dot dot as a parameter", "a;..", "https://api.example.com/zones/a%3B../purge?tag=a%3B..&x=1"},
		{"empty", "", ""},
		{"newline", "a\nb", ""},
		{"CRLF", "a\r\nHost: evil", ""},
		{"NUL", "a\x00b", ""},
		{"line separator", "a\u2028b", ""},
		{"not UTF-8", "\xff", ""},
		{"too long", strings.Repeat("a", maxURL), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := URL(written, values(tt.p))
			if tt.want == "" {
				if !errors.Is(err, ErrRefused) {
					t.Fatalf("URL = %q, %v; want a refusal", got, err)
				}
				if len(tt.p) > 3 && strings.Contains(err.Error(), tt.p) {
					t.Fatalf("URL = %v: the error shows the value", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("URL = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestURLSegments(t *testing.T) {
	tests := []struct {
		written, p string
		want       string // "" for a refusal
	}{
		// The whole segment is checked, with the text around the value.
		{"https://h.example/.{{ .Params.p }}/x", ".", ""},
		{"https://h.example/{{ .Params.p }}./x", ".", ""},
		{"https://h.example/%2e{{ .Params.p }}/x", ".", ""},
		{"https://h.example/a.{{ .Params.p }}/x", ".", "https://h.example/a../x"},
		// A value may be empty inside a segment or a query value, not be
		// the whole segment.
		{"https://h.example/v{{ .Params.p }}/x", "", "https://h.example/v/x"},
		{"https://h.example/x?q={{ .Params.p }}", "", "https://h.example/x?q="},
		{"https://h.example/{{ .Params.p }}", "", ""},
		// Query values are not path segments.
		{"https://h.example/x?q={{ .Params.p }}", "..", "https://h.example/x?q=.."},
		{"https://h.example?q={{ .Params.p }}", "a/b", "https://h.example?q=a%2Fb"},
		{"https://h.example/x?q={{ .Params.p }}#frag", "a#b", "https://h.example/x?q=a%23b#frag"},
		{"https://h.example:8443/{{ .Version }}", "", "https://h.example:8443/1.5.0%2Bbuild.7"},
	}
	for _, tt := range tests {
		got, err := URL(tt.written, values(tt.p))
		switch {
		case tt.want == "" && !errors.Is(err, ErrRefused):
			t.Errorf("URL(%q) with %q = %q, %v; want a refusal", tt.written, tt.p, got, err)
		case tt.want != "" && (err != nil || got != tt.want):
			t.Errorf("URL(%q) with %q = %q, %v; want %q", tt.written, tt.p, got, err, tt.want)
		}
	}
}

// TestURLRefusesDotSegmentsWithPathParameters: a server that drops
// ;path-parameters from a segment before it resolves dot segments (Tomcat,
// Jetty, Spring, also behind a proxy that decodes) reads /zones/..;/purge
// as /purge: a value that makes such a segment is refused as ".." is,
// also percent-encoded, and with the text written around it.
func TestURLRefusesDotSegmentsWithPathParameters(t *testing.T) {
	tests := []struct {
		written, p string
		want       string // "" for a refusal
	}{
		{"https://api.example.com/zones/{{ .Params.p }}/purge", "..;", ""},
		{"https://api.example.com/zones/{{ .Params.p }}/purge", "..;x=1", ""},
		{"https://api.example.com/zones/{{ .Params.p }}/purge", ".;", ""},
		{"https://api.example.com/zones/{{ .Params.p }}/purge", "%2e%2e;", ""},
		{"https://api.example.com/zones/{{ .Params.p }}/purge", "..%3B", ""},
		{"https://api.example.com/zones/{{ .Params.p }}/purge", "%2e%2e%253bx", ""},
		{"https://api.example.com/zones/{{ .Params.p }}/purge", "x%2F..;%2Fadmin", ""},
		{"https://api.example.com/zones/{{ .Params.p }}/purge", `x\..;\admin`, ""},
		{"https://h.example/..{{ .Params.p }}/x", ";", ""},
		{"https://h.example/{{ .Params.p }};v=1/x", "..", ""},
		{"https://h.example/{{ .Params.p }};v=1/x", ".", ""},
		// A ".." after the ";" is a parameter's, not a segment.
		{"https://h.example/a;{{ .Params.p }}/x", "..", "https://h.example/a;../x"},
		{"https://h.example/{{ .Params.p }};v=1/x", "...", "https://h.example/...;v=1/x"},
		{"https://h.example/{{ .Params.p }}/x", "..a;", "https://h.example/..a%3B/x"},
	}
	for _, tt := range tests {
		got, err := URL(tt.written, values(tt.p))
		switch {
		case tt.want == "" && !errors.Is(err, ErrRefused):
			t.Errorf("URL(%q) with %q = %q, %v; want a refusal", tt.written, tt.p, got, err)
		case tt.want != "" && (err != nil || got != tt.want):
			t.Errorf("URL(%q) with %q = %q, %v; want %q", tt.written, tt.p, got, err, tt.want)
		}
	}
}

func TestURLRefusesWhatCheckRefuses(t *testing.T) {
	for _, text := range []string{
		"https://{{ .Application }}.example/",
		"https://h.example/?{{ .Params.p }}=1",
		"https://h.example/#{{ .Params.p }}",
		"https://user:pw@h.example/",
		"ftp://h.example/",
		"https://h.example/a b",
	} {
		if got, err := URL(text, values("x")); err == nil {
			t.Errorf("URL(%q) = %q, want an error", text, got)
		}
	}
	if _, err := URL("https://h.example/{{ .Outputs.migrate.nope }}", values("x")); !errors.Is(err, ErrMissing) {
		t.Errorf("URL with a missing output = %v, want ErrMissing", err)
	}
}

// dotty reports whether seg is "." or "..", without its path parameters,
// decoded as often as it decodes.
func dotty(seg string) bool {
	for {
		if p, _, _ := strings.Cut(seg, ";"); p == "." || p == ".." {
			return true
		}
		d, err := url.PathUnescape(seg)
		if err != nil || d == seg {
			return false
		}
		seg = d
	}
}

// queryKeys are the names of the parameters of a raw query, in order.
func queryKeys(raw string) []string {
	if raw == "" {
		return nil
	}
	var keys []string
	for _, kv := range strings.Split(raw, "&") {
		k, _, _ := strings.Cut(kv, "=")
		keys = append(keys, k)
	}
	return keys
}

func FuzzURL(f *testing.F) {
	for _, seed := range [][2]string{
		{"https://api.example.com/zones/{{ .Params.p }}/purge", "../../admin"},
		{"https://api.example.com/zones/{{ .Params.p }}/purge", "%2e%2e"},
		{"https://h.example/a/{{ .Params.p }}?q={{ .Params.p }}&x=1", "a&b=c#d"},
		{"https://h.example/{{ .Params.p }}", "a/b?c"},
		{"https://h.example/.{{ .Params.p }}", "."},
		{"https://h.example/{{ .Params.p }}{{ .Params.p }}", "."},
		{"https://h.example:8443/{{ .Version }}/{{ .Application }}", "1.0+b"},
		{"https://[::1]/{{ .Params.p }}", "\r\nHost: evil"},
		{"http://127.0.0.1/{{ .Params.p }}#f", "}}{{ .Version }}"},
		{"https://h.example?q={{ .Params.p }}", "\u2028"},
		{"https://h.example/%2e{{ .Params.p }}", "%2e"},
		{"https://h.example/{{ .Params.p }}/x", "..;x=1"},
		{"https://h.example/..{{ .Params.p }}/x", "%3B"},
		{"https://h.example/{{ .DryRun }}/{{ .SHA256 }}", "ab"},
		{`https://h.example/{{ index .Outputs "post-test" "key" }}`, `..\..\`},
		{"https://h.example/{{ .Params.p }}", strings.Repeat("%", 3000)},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, written, value string) {
		if CheckURL(written, scope(), true) != nil {
			return
		}
		v := fuzzValues(value)
		out, err := URL(written, v)
		if err != nil {
			if !errors.Is(err, ErrRefused) && !errors.Is(err, ErrMissing) {
				t.Fatalf("URL(%q) = %v: not a refused or missing value", written, err)
			}
			if benign.MatchString(value) && !strings.Contains(written, "%") && len(written) < 1000 {
				t.Fatalf("URL(%q) with %q = %v, want it filled", written, value, err)
			}
			return
		}
		sample := execute(t, written, fuzzValues("x"))
		wu, err := url.Parse(sample)
		if err != nil {
			t.Fatalf("url.Parse(%q) = %v, yet CheckURL accepted %q", sample, err, written)
		}
		ou, err := url.Parse(out)
		if err != nil {
			t.Fatalf("url.Parse(%q) = %v", out, err)
		}
		if ou.Scheme != wu.Scheme || ou.Host != wu.Host || ou.User != nil {
			t.Fatalf("URL(%q) = %q: scheme or host is not %s://%s", written, out, wu.Scheme, wu.Host)
		}
		if !strings.HasPrefix(out, ou.Scheme+"://"+ou.Host+ou.EscapedPath()) {
			t.Fatalf("URL(%q) = %q: a client would send the path %q", written, out, ou.EscapedPath())
		}
		osegs, wsegs := strings.Split(ou.EscapedPath(), "/"), strings.Split(wu.EscapedPath(), "/")
		if len(osegs) != len(wsegs) {
			t.Fatalf("URL(%q) = %q: %d path segments, written %d", written, out, len(osegs), len(wsegs))
		}
		for i, seg := range osegs {
			if dotty(seg) && seg != wsegs[i] {
				t.Fatalf("URL(%q) = %q: segment %d is %q", written, out, i, seg)
			}
		}
		if ok, wk := strings.Join(queryKeys(ou.RawQuery), "&"), strings.Join(queryKeys(wu.RawQuery), "&"); ok != wk {
			t.Fatalf("URL(%q) = %q: query names %q, written %q", written, out, ok, wk)
		}
		if ou.EscapedFragment() != wu.EscapedFragment() {
			t.Fatalf("URL(%q) = %q: fragment %q, written %q", written, out, ou.EscapedFragment(), wu.EscapedFragment())
		}
	})
}
