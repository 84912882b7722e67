package placeholder

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"text/template"
)

// scope is the scope of the tests: a step declaring the parameters p and
// database, after steps migrate and post-test that declare outputs.
func scope() Scope {
	return Scope{
		Params:  map[string]bool{"p": true, "database": true},
		Outputs: map[string]map[string]bool{"migrate": {"applied": true}, "post-test": {"key": true}},
	}
}

// values are values for scope, p set to p.
func values(p string) Values {
	return Values{
		Application: "shop", Environment: "prod", Version: "1.5.0+build.7", Artifact: "shop.tgz",
		DeploymentID: "shop-1.5.0", SHA256: strings.Repeat("ab", 32),
		Params:  map[string]string{"p": p, "database": "shop"},
		Outputs: map[string]map[string]string{"migrate": {"applied": "12"}, "post-test": {"key": "k-1"}},
	}
}

// execute is text filled by text/template itself: the oracle of what a
// placeholder stands for, independent of this package.
func execute(t testing.TB, text string, v Values) string {
	t.Helper()
	tpl, err := template.New("oracle").Option("missingkey=error").Parse(text)
	if err != nil {
		t.Fatalf("oracle: parse %q: %v", text, err)
	}
	var b strings.Builder
	if err := tpl.Execute(&b, v); err != nil {
		t.Fatalf("oracle: execute %q: %v", text, err)
	}
	return b.String()
}

func TestCheck(t *testing.T) {
	ok := []string{
		"",
		"plain text",
		"a }} b",
		"{{ .Application }}/{{ .Environment }}/{{ .Version }}/{{ .Artifact }}/{{ .DeploymentID }}/{{ .SHA256 }}/{{ .DryRun }}",
		"--db={{ .Params.database }}",
		`{{ index .Params "database" }}`,
		"{{ .Outputs.migrate.applied }}",
		`{{ index .Outputs "post-test" "key" }}`,
		"v{{- .Version -}}.tgz",
	}
	for _, text := range ok {
		if err := Check(text, scope()); err != nil {
			t.Errorf("Check(%q) = %v, want nil", text, err)
		}
	}
	tests := []struct{ text, want string }{
		{"{{ .Foo }}", "unknown placeholder {{.Foo}}"},
		{"{{ .version }}", "unknown placeholder {{.version}}"},
		{"{{ .Secrets.token }}", "unknown placeholder {{.Secrets.token}}"},
		{"{{ .Params.nope }}", `{{.Params.nope}}: the step declares no parameter "nope"`},
		{`{{ index .Params "no-pe" }}`, `the step declares no parameter "no-pe"`},
		{"{{ .Params }}", "write {{ .Params.<name> }}"},
		{"{{ .Params.database.x }}", "write {{ .Params.<name> }}"},
		{"{{ .Outputs.migrate.nope }}", `step "migrate" declares no output "nope"`},
		{"{{ .Outputs.later.x }}", `no step "later" with outputs runs before this one`},
		{"{{ .Outputs.migrate }}", "write {{ .Outputs.<step>.<key> }}"},
		{`{{ index .Outputs "post-test" }}`, `write {{ index .Outputs "<step>" "<key>" }}`},
		{`{{ index .Outputs "post-test" "key" "x" }}`, `write {{ index .Outputs "<step>" "<key>" }}`},
		{"{{ .Response.id }}", ".Response is allowed only in poll.url"},
		{"{{ .Response }}", "name a field of the response"},
		{`{{ printf "%s" .Version }}`, "function printf is not allowed"},
		{"{{ call .Version }}", "function call is not allowed"},
		{"{{ html .Version }}", "function html is not allowed"},
		{"{{ .Version | html }}", "a pipeline (|) is not allowed"},
		{"{{ if .DryRun }}x{{ end }}", "{{ if }} is not allowed"},
		{"{{ range .Params }}x{{ end }}", "{{ range }} is not allowed"},
		{"{{ with .Params }}x{{ end }}", "{{ with }} is not allowed"},
		{`{{ template "x" }}`, "{{ template }} is not allowed"},
		{`{{ define "x" }}a{{ end }}`, "{{ define }} and {{ block }} are not allowed"},
		{`{{ block "x" . }}a{{ end }}`, "not allowed"},
		{"{{ $x := .Version }}", "variables are not allowed"},
		{"{{ $ }}", "variables are not allowed"},
		{"{{ . }}", "name a value"},
		{"{{ .Version.Major }}", ".Version has no fields"},
		{`{{ "literal" }}`, "a constant is not a placeholder"},
		{"{{ 42 }}", "a constant is not a placeholder"},
		{"{{ nil }}", "a constant is not a placeholder"},
		{"{{/* a comment */}}", "a comment is not allowed"},
		{"{{ .Version", "template: unclosed action"},
		{"}}{{", "template:"},
		{"a\n{{ .Version", "template: line 2:"},
		{`{{ index .Version "x" }}`, "index applies to .Params, .Outputs and .Response only"},
		{`{{ index .Params .Version }}`, "with quoted names"},
		{`{{ index .Params 0 }}`, `write {{ index .Params "<name>" }}`},
		{`{{ index .Params "" }}`, "an empty name"},
		{`{{ (.Params).database }}`, "only a plain placeholder"},
		{`{{ .Application "x" }}`, "arguments are not allowed"},
	}
	for _, tt := range tests {
		err := Check(tt.text, scope())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%q) = %v, want an error with %q", tt.text, err, tt.want)
		}
	}
}

func TestCheckResponse(t *testing.T) {
	s := Scope{Response: true}
	for _, text := range []string{"{{ .Response.result.id }}", `{{ index .Response "items" 0 "id" }}`, `{{ index .Response "a.b" }}`} {
		if err := Check(text, s); err != nil {
			t.Errorf("Check(%q) = %v, want nil", text, err)
		}
	}
	for _, text := range []string{`{{ index .Response }}`, `{{ index .Response -1 }}`, `{{ index .Response 1.5 }}`} {
		if err := Check(text, s); err == nil {
			t.Errorf("Check(%q) = nil, want an error", text)
		}
	}
}

// A message shows the placeholder as written, escaped and cut: an author's
// typo cannot write control characters to a log.
func TestCheckMessagesAreEscaped(t *testing.T) {
	text := `{{ index .Params "a` + "\x1b[2J" + strings.Repeat("x", 500) + `" }}`
	err := Check(text, scope())
	if err == nil {
		t.Fatal("Check = nil, want an error")
	}
	if msg := err.Error(); strings.ContainsRune(msg, 0x1b) || len(msg) > 300 || !strings.Contains(msg, `\x1b[2J`) {
		t.Errorf("Check = %q, want it escaped and short", msg)
	}
}

func TestCheckVersion(t *testing.T) {
	tests := []struct {
		v    string
		want string // "" for valid
	}{
		{"1.5.0", ""},
		{"1.5.0+build.7", ""},
		{"v2_rc-1", ""},
		{"A", ""},
		{strings.Repeat("a", 128), ""},
		{"", "it is empty"},
		{strings.Repeat("a", 129), "129 bytes long"},
		{"-1.0", "byte 0"},
		{".1", "byte 0"},
		{"1.0/../x", "byte 3"},
		{"1.0 beta", "byte 3"},
		{"1.0\n", "byte 3"},
		{"1.0é", "byte 3"},
		{"{{.Version}}", "byte 0"},
	}
	for _, tt := range tests {
		err := CheckVersion(tt.v)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckVersion(%q) = %v, want nil", tt.v, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckVersion(%q) = %v, want an error with %q", tt.v, err, tt.want)
		case err != nil && len(tt.v) > 3 && strings.Contains(err.Error(), tt.v):
			t.Errorf("CheckVersion(%q) = %v shows the version", tt.v, err)
		}
	}
}

// The values, rendered in the context that changes them least (a header),
// and what a missing or unfit one gives.
func TestValues(t *testing.T) {
	var response any
	if err := json.Unmarshal([]byte(`{"result": {"id": "p-1", "n": 12, "big": 12345678901, "f": 1.5, "ok": true, "none": null,
		"obj": {}, "list": ["a", {"id": "x"}]}, "a.b": "dotted"}`), &response); err != nil {
		t.Fatal(err)
	}
	dry := values("x")
	dry.DryRun = true
	noApp := values("x")
	noApp.Application = ""
	badVersion := values("x")
	badVersion.Version = "1.0;id"
	numbers := values("x")
	numbers.Response = map[string]any{"n": json.Number("12")}
	with := func(v Values) Values { v.Response = response; return v }
	tests := []struct {
		name, text string
		v          Values
		want       string
		kind       error // for an error: ErrMissing or ErrRefused
	}{
		{"fixed", "{{ .Application }} {{ .Environment }} {{ .Version }} {{ .Artifact }} {{ .DeploymentID }} {{ .DryRun }}", values("x"),
			"shop prod 1.5.0+build.7 shop.tgz shop-1.5.0 false", nil},
		{"sha256", "{{ .SHA256 }}", values("x"), strings.Repeat("ab", 32), nil},
		{"dry run", "{{ .DryRun }}", dry, "true", nil},
		{"param", "{{ .Params.p }}", values("abc"), "abc", nil},
		{"param by index", `{{ index .Params "database" }}`, values("abc"), "shop", nil},
		{"output", "{{ .Outputs.migrate.applied }}", values("x"), "12", nil},
		{"output by index", `{{ index .Outputs "post-test" "key" }}`, values("x"), "k-1", nil},
		{"a value is not a template", "{{ .Params.p }}", values("{{ .Version }}"), "{{ .Version }}", nil},
		{"missing param", "{{ .Params.other }}", values("x"), "", ErrMissing},
		{"missing output", "{{ .Outputs.migrate.other }}", values("x"), "", ErrMissing},
		{"missing step", `{{ index .Outputs "later" "k" }}`, values("x"), "", ErrMissing},
		{"empty fixed value", "{{ .Application }}", noApp, "", ErrMissing},
		{"bad version", "{{ .Version }}", badVersion, "", ErrRefused},
		{"response string", "{{ .Response.result.id }}", with(values("x")), "p-1", nil},
		{"response number", "{{ .Response.result.n }}", with(values("x")), "12", nil},
		{"response big number", "{{ .Response.result.big }}", with(values("x")), "12345678901", nil},
		{"response float", "{{ .Response.result.f }}", with(values("x")), "1.5", nil},
		{"response json.Number", "{{ .Response.n }}", numbers, "12", nil},
		{"response bool", "{{ .Response.result.ok }}", with(values("x")), "true", nil},
		{"response list index", `{{ index .Response "result" "list" 1 "id" }}`, with(values("x")), "x", nil},
		{"response dotted key", `{{ index .Response "a.b" }}`, with(values("x")), "dotted", nil},
		{"response absent", "{{ .Response.result.nope }}", with(values("x")), "", ErrMissing},
		{"response null", "{{ .Response.result.none }}", with(values("x")), "", ErrMissing},
		{"response index out of range", `{{ index .Response "result" "list" 2 }}`, with(values("x")), "", ErrMissing},
		{"response field of a list", "{{ .Response.result.list.id }}", with(values("x")), "", ErrMissing},
		{"no response", "{{ .Response.result.id }}", values("x"), "", ErrMissing},
		{"response object", "{{ .Response.result.obj }}", with(values("x")), "", ErrRefused},
		{"response list", "{{ .Response.result.list }}", with(values("x")), "", ErrRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Header(tt.text, tt.v)
			switch {
			case tt.kind == nil && (err != nil || got != tt.want):
				t.Fatalf("Header(%q) = %q, %v; want %q", tt.text, got, err, tt.want)
			case tt.kind != nil && !errors.Is(err, tt.kind):
				t.Fatalf("Header(%q) = %q, %v; want an error of kind %v", tt.text, got, err, tt.kind)
			case err != nil && strings.Contains(err.Error(), "<no value>"):
				t.Fatalf("Header(%q) = %v", tt.text, err)
			}
		})
	}
}
