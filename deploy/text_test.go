package deploy

import (
	"testing"
	"unicode/utf8"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://health.example/ready", "https://health.example/ready"},
		{"http://user:pass@127.0.0.1:8080/h?token=s3cret", "http://127.0.0.1:8080/h"},
		{"http://user:p@ss@host/h", "http://host/h"},
		{"http://user@host", "http://host"},
		{"http://host/h#frag", "http://host/h"},
		{"http://host/h?", "http://host/h"},
		// A template, not a URL yet: the placeholders stay.
		{"http://u:p@host/{{ .Version }}/ready?token={{ .Tenant }}", "http://host/{{ .Version }}/ready"},
		// An @ of the path is not user info.
		{"https://registry.example/@scope/pkg", "https://registry.example/@scope/pkg"},
		{"file:hello-1.0.0.tar.gz", "file:hello-1.0.0.tar.gz"},
		{"file:hello.tgz?sig=abc", "file:hello.tgz"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEscapeText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "deploy finished: SUCCESS", "deploy finished: SUCCESS"},
		{"unicode", "déployé ✓ 完了", "déployé ✓ 完了"},
		{"OSC title and clear screen", "x/\x1b]0;pwned\x07\x1b[2J", `x/\x1b]0;pwned\x07\x1b[2J`},
		{"new lines, returns and tabs", "a\nb\r\tc", `a\nb\r\tc`},
		{"NUL and DEL", "a\x00b\x7f", `a\x00b\x7f`},
		{"C1 CSI", "a\u009b2Jb", `a\u009b2Jb`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"bidirectional override", "\u202eSSECCUS", `\u202eSSECCUS`},
		{"invalid UTF-8", "link\xff\xfe", `link\xff\xfe`},
		{"a lone continuation byte", "\x9b[2J", `\x9b[2J`},
		{"backslashes stay", `C:\work\x1b`, `C:\work\x1b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EscapeText(tt.in)
			if got != tt.want {
				t.Errorf("EscapeText(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := EscapeText(got); again != got {
				t.Errorf("escaping twice changed %q into %q", got, again)
			}
			if !utf8.ValidString(got) {
				t.Errorf("EscapeText(%q) = %q is not UTF-8", tt.in, got)
			}
			for _, r := range got {
				if Escaped(r) {
					t.Errorf("EscapeText(%q) = %q still holds %U", tt.in, got, r)
				}
			}
		})
	}
}

// UnsafeText refuses exactly what EscapeText escapes (but what it is told
// to allow), and says which code point and where.
func TestUnsafeText(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		s := "a" + string(r)
		if got := UnsafeText(s, ""); (got != "") != Escaped(r) || (got != "") != (EscapeText(s) != s) {
			t.Fatalf("UnsafeText(%q) = %q, Escaped %v", s, got, Escaped(r))
		}
	}
	tests := []struct{ in, allowed, want string }{
		{"plain text, déjà vu", "", ""},
		{"two\n\tlines", "\n\t", ""},
		{"two\nlines", "", "U+000A, a control character, at byte 3"},
		{"a\rb", "\n\t", "U+000D, a control character, at byte 1"},
		{"abc\u202edcb", "\n\t", "U+202E, a control of bidirectional text, at byte 3"},
		{"\u2066x\u2069", "", "U+2066, a control of bidirectional text, at byte 0"},
		{"a\u2028b", "\n", "U+2028, a line separator, at byte 1"},
		{"a\u2029b", "", "U+2029, a paragraph separator, at byte 1"},
		{"ok \xff", "", `byte \xff, not UTF-8, at byte 3`},
	}
	for _, tt := range tests {
		if got := UnsafeText(tt.in, tt.allowed); got != tt.want {
			t.Errorf("UnsafeText(%q, %q) = %q, want %q", tt.in, tt.allowed, got, tt.want)
		}
	}
}
