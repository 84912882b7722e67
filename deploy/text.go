package deploy

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// RedactURL is a URL as its readers see it: without the user info, the
// query and the fragment, any of which may carry a token. It works on text
// that is not a valid URL too, such as a health check's template
// (http://host/{{ .Version }}?token=...), and leaves text without "://"
// (file:name.tgz) as it is but for its query.
func RedactURL(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i]
	}
	scheme := strings.Index(raw, "://")
	if scheme < 0 {
		return raw
	}
	rest := raw[scheme+3:]
	authority := rest
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		authority = rest[:i]
	}
	// The last @ of the authority ends the user info: a password may hold
	// an @ of its own.
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		return raw[:scheme+3] + rest[at+1:]
	}
	return raw
}

// Escaped reports whether EscapeText writes r as an escape: a control
// character (C0, DEL, C1), a line or paragraph separator, or a control of
// bidirectional text. A terminal acts on any of them (moves the cursor,
// clears the screen, sets its title, starts a line, reorders what follows)
// instead of showing it.
func Escaped(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// UnsafeText says what makes s unfit for free text a person gives manent
// (a description, a label, a parameter, a comment): the first byte that is
// not UTF-8, or the first rune Escaped reports that allowed does not hold,
// with its code point and where it is; "" when s is fit. Every check of
// free text calls it, so input refuses what EscapeText would escape.
func UnsafeText(s, allowed string) string {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return fmt.Sprintf(`byte \x%02x, not UTF-8, at byte %d`, s[i], i)
			}
		}
		if Escaped(r) && !strings.ContainsRune(allowed, r) {
			return fmt.Sprintf("U+%04X, %s, at byte %d", r, escapedKind(r), i)
		}
	}
	return ""
}

// escapedKind names the kind of a rune Escaped reports.
func escapedKind(r rune) string {
	switch {
	case r == 0x2028:
		return "a line separator"
	case r == 0x2029:
		return "a paragraph separator"
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return "a control character"
	}
	return "a control of bidirectional text"
}

// EscapeText is s as one line of text shown as it is: every rune Escaped
// reports is written as a Go escape (\n, \t, \x1b, \u009b, \u202e) and
// every byte that is not UTF-8 as \xNN. What it returns holds nothing it
// would escape again, so escaping twice changes nothing more.
func EscapeText(s string) string {
	i := firstEscape(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case Escaped(r):
			b.WriteString(EscapeRune(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// EscapeRune is the escape EscapeText writes for r.
func EscapeRune(r rune) string {
	switch r {
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	if r < 0x80 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// firstEscape is the index of the first byte of s EscapeText changes, -1
// for none.
func firstEscape(s string) int {
	for i, r := range s {
		if Escaped(r) {
			return i
		}
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return -1
}

// FormatDuration writes d in the units people read (1h30m, 10m, 45s),
// truncated to the second.
func FormatDuration(d time.Duration) string {
	d = d.Truncate(time.Second)
	if d <= 0 {
		return "0s"
	}
	var b strings.Builder
	if h := d / time.Hour; h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m := d % time.Hour / time.Minute; m > 0 {
		fmt.Fprintf(&b, "%dm", m)
	}
	if s := d % time.Minute / time.Second; s > 0 {
		fmt.Fprintf(&b, "%ds", s)
	}
	return b.String()
}
