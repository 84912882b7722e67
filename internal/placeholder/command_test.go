package placeholder

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
)

func TestCheckCommand(t *testing.T) {
	ok := [][]string{
		{"/opt/tools/migrate", "up", "--to", "{{ .Version }}", "--db", "{{ .Params.database }}"},
		{"/opt/tools/migrate"},
		{"/bin/echo", "", "a\nb"},
		{"/bin/echo", "--applied={{ .Outputs.migrate.applied }}", `{{ index .Outputs "post-test" "key" }}`},
	}
	for _, argv := range ok {
		if err := CheckCommand(argv, scope()); err != nil {
			t.Errorf("CheckCommand(%q) = %v, want nil", argv, err)
		}
	}
	tests := []struct {
		argv       []string
		path, want string
	}{
		{nil, "", "at least the program"},
		{[]string{}, "", "at least the program"},
		{[]string{""}, "[0]", "absolute path"},
		{[]string{"migrate", "up"}, "[0]", "absolute path"},
		{[]string{"./migrate"}, "[0]", "absolute path"},
		{[]string{"{{ .Params.p }}"}, "[0]", "without placeholders"},
		{[]string{"/opt/{{ .Version }}/migrate"}, "[0]", "without placeholders"},
		{[]string{"/opt/migrate\n"}, "[0]", "U+000A"},
		{[]string{"/opt/migrate", "up", "{{ .Nope }}"}, "[2]", "unknown placeholder"},
		{[]string{"/opt/migrate", "{{ .Params.nope }}"}, "[1]", `no parameter "nope"`},
		{[]string{"/opt/migrate", "a\x00b"}, "[1]", "NUL"},
		{[]string{"/opt/migrate", "{{ .Response.id }}"}, "[1]", "only in poll.url"},
	}
	for _, tt := range tests {
		err := CheckCommand(tt.argv, scope())
		var pe *PartError
		switch {
		case err == nil || !strings.Contains(err.Error(), tt.want):
			t.Errorf("CheckCommand(%q) = %v, want an error with %q", tt.argv, err, tt.want)
		case tt.path != "" && (!errors.As(err, &pe) || pe.Path != tt.path):
			t.Errorf("CheckCommand(%q) = %v, want a PartError at %s", tt.argv, err, tt.path)
		}
	}
}

func TestCommand(t *testing.T) {
	long := strings.Repeat("a", maxArg)
	tests := []struct {
		name    string
		written string // the argument; p is the hostile value
		p       string
		want    string // "" for a refusal
	}{
		{"plain", "{{ .Params.p }}", "shop", "shop"},
		{"option", "{{ .Params.p }}", "-oProxyCommand=sh -c id", ""},
		{"long option", "{{ .Params.p }}", "--help", ""},
		{"lone dash", "{{ .Params.p }}", "-", ""},
		{"after another value", "{{ .Params.database }}{{ .Params.p }}", "-x", "shop-x"},
		{"an empty value before a dash", "{{ .Params.p }}-x", "", ""},
		{"option written", "--db={{ .Params.p }}", "-oProxyCommand=x", "--db=-oProxyCommand=x"},
		{"dash written", "-{{ .Params.p }}", "v", "-v"},
		{"leading space is not an option", "{{ .Params.p }}", " -x", " -x"},
		{"empty", "{{ .Params.p }}", "", ""},
		{"empty inside text", "db-{{ .Params.p }}", "", "db-"},
		{"newline", "{{ .Params.p }}", "a\nb", ""},
		{"carriage return", "x{{ .Params.p }}", "a\rb", ""},
		{"NUL", "{{ .Params.p }}", "a\x00b", ""},
		{"tab", "{{ .Params.p }}", "a\tb", ""},
		{"escape", "{{ .Params.p }}", "\x1b]0;pwned\a", ""},
		{"DEL", "{{ .Params.p }}", "a\x7f", ""},
		{"C1", "{{ .Params.p }}", "a\u009bb", ""},
		{"line separator", "{{ .Params.p }}", "a\u2028b", ""},
		{"bidi override", "{{ .Params.p }}", "a\u202eb", ""},
		{"not UTF-8", "{{ .Params.p }}", "a\xffb", ""},
		{"braces", "{{ .Params.p }}", "}}{{ .Version }}", "}}{{ .Version }}"},
		{"shell", "{{ .Params.p }}", "x; rm -rf / $(id) `id` 'q' \"d\"", "x; rm -rf / $(id) `id` 'q' \"d\""},
		{"traversal is text", "{{ .Params.p }}", "../../etc/passwd", "../../etc/passwd"},
		{"unicode", "{{ .Params.p }}", "héllo", "héllo"},
		{"longest", "{{ .Params.p }}", long, long},
		{"too long", "x{{ .Params.p }}", long, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			argv := []string{"/opt/tools/migrate", "up", tt.written, "--db", "{{ .Params.database }}"}
			got, err := Command(argv, values(tt.p))
			if tt.want == "" {
				var pe *PartError
				if !errors.Is(err, ErrRefused) || !errors.As(err, &pe) || pe.Path != "[2]" {
					t.Fatalf("Command = %q, %v; want a refusal of [2]", got, err)
				}
				if len(tt.p) > 3 && strings.Contains(err.Error(), tt.p) {
					t.Fatalf("Command = %v: the error shows the value", err)
				}
				return
			}
			want := []string{"/opt/tools/migrate", "up", tt.want, "--db", "shop"}
			if err != nil || len(got) != len(want) || strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				t.Fatalf("Command = %q, %v; want %q", got, err, want)
			}
		})
	}
}

func TestCommandRefusesWhatCheckRefuses(t *testing.T) {
	// A command from a stored plan is held to the rules again.
	for _, argv := range [][]string{
		nil,
		{"migrate"},
		{"/opt/{{ .Version }}"},
		{"/opt/x", `{{ printf "%s" .Version }}`},
		{"/opt/x", "a\x00"},
	} {
		if got, err := Command(argv, values("x")); err == nil {
			t.Errorf("Command(%q) = %q, want an error", argv, got)
		}
	}
	if _, err := Command([]string{"/opt/x", "{{ .Params.other }}"}, values("x")); !errors.Is(err, ErrMissing) {
		t.Errorf("Command with a missing parameter = %v, want ErrMissing", err)
	}
}

// benign is a value that no context refuses.
var benign = regexp.MustCompile(`^[A-Za-z0-9_]{1,32}$`)

// fuzzValues puts value everywhere a placeholder can take it (the version
// only if it is one).
func fuzzValues(value string) Values {
	v := values(value)
	v.Application, v.Environment, v.Artifact, v.DeploymentID, v.SHA256 = value, value, value, value, value
	if CheckVersion(value) == nil {
		v.Version = value
	}
	v.DryRun = len(value)%2 == 1
	v.Outputs["migrate"]["applied"] = value
	v.Outputs["post-test"]["key"] = value
	return v
}

func FuzzCommand(f *testing.F) {
	for _, seed := range [][2]string{
		{"{{ .Params.p }}", "-oProxyCommand=sh -c 'id'"},
		{"{{ .Params.p }}", "--"},
		{"--db={{ .Params.p }}", "-x"},
		{"-{{ .Params.p }}", ""},
		{"{{ .Params.p }}{{ .Outputs.migrate.applied }}", ""},
		{"{{ .Params.p }}", "a\nb\x00c"},
		{"x{{ .Params.p }}", "\u2028\u202e"},
		{"{{ .Params.p }}", "}}{{ .Version }}"},
		{"{{ .Params.p }}", "\"';$(id)"},
		{`{{ index .Outputs "post-test" "key" }}`, "../../x"},
		{"{{ .Application }}-{{ .Version }}", "1.0.0"},
		{"{{- .Params.p -}}", " -x "},
		{"", "v"},
		{"{{ .DryRun }}", "ab"},
		{"{{ .Params.p }}", strings.Repeat("x", 1000)},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, written, value string) {
		argv := []string{"/opt/tools/x", written, "--fixed", "{{ .Params.p }}"}
		if CheckCommand(argv, scope()) != nil {
			return
		}
		v := fuzzValues(value)
		out, err := Command(argv, v)
		if err != nil {
			var pe *PartError
			if !errors.As(err, &pe) || !errors.Is(err, ErrRefused) && !errors.Is(err, ErrMissing) {
				t.Fatalf("Command(%q) = %v: not a refused or missing value of one argument", argv, err)
			}
			if benign.MatchString(value) && len(written) < 1000 {
				t.Fatalf("Command(%q) with %q = %v, want it filled", argv, value, err)
			}
			return
		}
		if len(out) != len(argv) || out[0] != argv[0] {
			t.Fatalf("Command(%q) = %q: not the written program and argument count", argv, out)
		}
		for i, a := range argv[1:] {
			got := out[i+1]
			if want := execute(t, a, v); got != want {
				t.Fatalf("argument %d = %q, want %q", i+1, got, want)
			}
			if strings.HasPrefix(got, "-") && !strings.HasPrefix(a, "-") {
				t.Fatalf("argument %d = %q starts with - but %q does not", i+1, got, a)
			}
			if got == "" && a != "" {
				t.Fatalf("argument %d of %q is empty", i+1, a)
			}
			if deploy.UnsafeText(a, "") == "" && deploy.UnsafeText(got, "") != "" {
				t.Fatalf("argument %d = %q holds a control character %q does not", i+1, got, a)
			}
		}
	})
}
