package placeholder

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckHeader(t *testing.T) {
	for _, text := range []string{"Bearer {{ .Params.p }}", "a\tb", "", "{{ .Application }}/{{ .Version }}"} {
		if err := CheckHeader(text, scope()); err != nil {
			t.Errorf("CheckHeader(%q) = %v, want nil", text, err)
		}
	}
	tests := []struct{ text, want string }{
		{"a\r\nX-Evil: 1", "U+000D"},
		{"a\nb", "U+000A"},
		{"a\x00", "U+0000"},
		{"a\u2028", "a line separator"},
		{"{{ .Params.nope }}", `no parameter "nope"`},
		{"{{ .Response.id }}", "only in poll.url"},
	}
	for _, tt := range tests {
		err := CheckHeader(tt.text, scope())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckHeader(%q) = %v, want an error with %q", tt.text, err, tt.want)
		}
	}
}

func TestHeader(t *testing.T) {
	const written = "tenant={{ .Params.p }}; app={{ .Application }}"
	tests := []struct {
		name, p string
		want    string // "" for a refusal
	}{
		{"plain", "acme", "tenant=acme; app=shop"},
		{"separators", `a;b=c,"d"`, `tenant=a;b=c,"d"; app=shop`},
		{"braces", "}}{{ .Version }}", "tenant=}}{{ .Version }}; app=shop"},
		{"unicode", "é", "tenant=é; app=shop"},
		{"empty inside", "", "tenant=; app=shop"},
		{"header injection", "a\r\nX-Evil: 1", ""},
		{"LF", "a\nb", ""},
		{"CR", "a\rb", ""},
		{"NUL", "a\x00b", ""},
		{"tab", "a\tb", ""},
		{"DEL", "\x7f", ""},
		{"C1 next line", "a\u0085b", ""},
		{"line separator", "a\u2028b", ""},
		{"not UTF-8", "\xc3", ""},
		{"too long", strings.Repeat("a", maxHeader), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Header(written, values(tt.p))
			if tt.want == "" {
				if !errors.Is(err, ErrRefused) {
					t.Fatalf("Header = %q, %v; want a refusal", got, err)
				}
				if len(tt.p) > 3 && strings.Contains(err.Error(), tt.p) {
					t.Fatalf("Header = %v: the error shows the value", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Header = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if got, err := Header("{{ .Params.p }}", values("")); !errors.Is(err, ErrRefused) {
		t.Errorf("Header made empty = %q, %v; want a refusal", got, err)
	}
	if _, err := Header("a\nb", values("x")); err == nil {
		t.Error("Header with a written line break = nil, want an error")
	}
}

func FuzzHeader(f *testing.F) {
	for _, seed := range [][2]string{
		{"Bearer {{ .Params.p }}", "a\r\nX-Evil: 1"},
		{"{{ .Params.p }}", "\n"},
		{"{{ .Params.p }}", ""},
		{"x-{{ .Params.p }}", "\x00\t\x7f\u0085\u2028"},
		{"{{ .Params.p }}", "}}{{ .Version }}"},
		{"a\t{{ .Application }}", "shop"},
		{"{{ .Outputs.migrate.applied }}", "\xff"},
		{"{{ .Params.p }}", strings.Repeat("v", 9000)},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, written, value string) {
		if CheckHeader(written, scope()) != nil {
			return
		}
		v := fuzzValues(value)
		out, err := Header(written, v)
		if err != nil {
			if !errors.Is(err, ErrRefused) && !errors.Is(err, ErrMissing) {
				t.Fatalf("Header(%q) = %v: not a refused or missing value", written, err)
			}
			if benign.MatchString(value) && len(written) < 1000 {
				t.Fatalf("Header(%q) with %q = %v, want it filled", written, value, err)
			}
			return
		}
		if want := execute(t, written, v); out != want {
			t.Fatalf("Header(%q) = %q, want %q", written, out, want)
		}
		for i := 0; i < len(out); i++ {
			if c := out[i]; c < 0x20 && c != '\t' || c == 0x7f {
				t.Fatalf("Header(%q) = %q holds byte %#x", written, out, c)
			}
		}
		if strings.ContainsRune(out, '\t') && !strings.ContainsRune(written, '\t') {
			t.Fatalf("Header(%q) = %q: a value brought a tab", written, out)
		}
		if out == "" && written != "" {
			t.Fatalf("Header(%q) is empty", written)
		}
	})
}
