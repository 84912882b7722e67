package mask

import (
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// MinLen is the shortest secret value accepted, in bytes. A shorter one
// would mask ordinary words of every log, and the *** where those words
// should be would give the secret away.
const MinLen = 8

// Redacted replaces a secret in what is shown.
const Redacted = "***"

// ErrTooShort is why New refuses a secret.
var ErrTooShort = fmt.Errorf("value shorter than %d bytes: a value this short cannot be masked without masking ordinary words", MinLen)

// TooShort reports whether a secret value is shorter than MinLen bytes,
// not counting a final line break: New refuses it.
func TooShort(v string) bool { return len(strings.TrimRight(v, "\r\n")) < MinLen }

// A Masker replaces the values of a run's secrets in text. It is safe for
// concurrent use.
type Masker struct {
	// values are what the matcher looks for: each secret, each of its lines
	// of MinLen bytes or more, and the characters of their base64 forms
	// that the secret alone decides.
	values []string
	// starts lists, for a byte of text, the values a form can begin with it.
	starts [256][]string
	// maxForm is the most text a form of a value can take.
	maxForm int
}

// New is a Masker of secrets, logical name to value. A value shorter than
// MinLen bytes (not counting a final line break) is refused, and the error
// names the secrets, never their values. An empty map masks nothing.
func New(secrets map[string]string) (*Masker, error) {
	names := make([]string, 0, len(secrets))
	for name := range secrets {
		names = append(names, name)
	}
	sort.Strings(names)
	var short []string
	seen := map[string]bool{}
	m := &Masker{}
	for _, name := range names {
		v := secrets[name]
		if TooShort(v) {
			short = append(short, fmt.Sprintf("%q", name))
			continue
		}
		for _, value := range secretValues(v) {
			if !seen[value] {
				seen[value] = true
				m.add(value)
			}
		}
	}
	switch len(short) {
	case 0:
		return m, nil
	case 1:
		return nil, fmt.Errorf("secret %s: %w", short[0], ErrTooShort)
	}
	return nil, fmt.Errorf("secrets %s: %w", strings.Join(short, ", "), ErrTooShort)
}

// secretValues are the values that show a secret: the secret, as it is
// and in base64, and the same without a final line break (a file's, a
// vault value's), which scripts strip. When it holds more line breaks (a
// key, a certificate), each of its lines of MinLen bytes or more too, since
// a line of the log holds at most one of them; not in base64, which a
// script would write of the whole secret, and which would make a key cost
// fifty secrets.
func secretValues(secret string) []string {
	whole := []string{secret}
	if trimmed := strings.TrimRight(secret, "\r\n"); trimmed != secret {
		whole = append(whole, trimmed)
	}
	values := slices.Clone(whole)
	for _, v := range whole {
		values = append(values, base64Forms(v)...)
	}
	for _, line := range strings.FieldsFunc(secret, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if len(line) >= MinLen && !slices.Contains(whole, line) {
			values = append(values, line)
		}
	}
	return values
}

// base64Forms are the characters of the base64 forms of secret that the
// secret alone decides, in the standard and URL alphabets, wherever it
// begins in the encoded stream (offset 0, 1 or 2 of a 3-byte group): the
// characters that also hold bits of the bytes before or after it are not
// the secret's. When the secret ends the stream, its last character is
// decided too (the rest of its bits are zero), and so is the padding.
func base64Forms(secret string) []string {
	var forms []string
	for offset := range 3 {
		stream := strings.Repeat("\x00", offset) + secret
		first := (8*offset + 5) / 6 // the first character without a bit of the bytes before
		whole := 8 * len(stream) / 6
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			e := enc.EncodeToString([]byte(stream))
			forms = append(forms, e[first:whole])
			if whole < len(e) {
				// The stream ends with the secret: its last character, and
				// its padding when the encoding pads.
				pad := strings.Repeat("=", (3-len(stream)%3)%3)
				forms = append(forms, e[first:], e[first:]+pad)
			}
		}
	}
	return forms
}

func (m *Masker) add(value string) {
	m.values = append(m.values, value)
	m.maxForm = max(m.maxForm, maxExpansion*len(value))
	starts := []byte{value[0], '%', '\\'}
	if value[0] == ' ' {
		starts = append(starts, '+')
	}
	for _, b := range starts {
		if l := m.starts[b]; len(l) > 0 && l[len(l)-1] == value {
			continue // a value beginning with % or \ is listed once
		}
		m.starts[b] = append(m.starts[b], value)
	}
}

// String is s with every secret, in every form the Masker knows, replaced
// by ***. Overlapping forms (two secrets, one the start of another) are
// replaced as one, so nothing of either shows. A replacement can bring
// text together into a secret again (a secret holding *** between two
// parts of itself): s is masked until nothing is left.
func (m *Masker) String(s string) string {
	if m == nil || len(m.values) == 0 {
		return s
	}
	for {
		out, changed := m.maskOnce(s)
		if !changed {
			return out
		}
		s = out
	}
}

// maskOnce replaces every span of s a form covers, the union of them all.
func (m *Masker) maskOnce(s string) (string, bool) {
	var b strings.Builder
	copied, start, end := 0, -1, -1
	flush := func() {
		if start < 0 {
			return
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[copied:start])
		b.WriteString(Redacted)
		copied = end
	}
	for i := 0; i < len(s); i++ {
		for _, v := range m.starts[s[i]] {
			mt := matcher{in: s, v: v}
			e := mt.from(i, 0)
			switch {
			case e < 0:
			case start >= 0 && i < end:
				end = max(end, e)
			default:
				flush()
				start, end = i, e
			}
		}
	}
	if start < 0 {
		return s, false
	}
	flush()
	b.WriteString(s[copied:])
	return b.String(), true
}

// partialStart is where a form of a secret could begin in s that s ends
// before it is complete: text cut there would show its start. len(s) when
// there is none.
func (m *Masker) partialStart(s string) int {
	if m == nil {
		return len(s)
	}
	for q := max(0, len(s)-m.maxForm); q < len(s); q++ {
		for _, v := range m.starts[s[q]] {
			mt := matcher{in: s, v: v}
			mt.from(q, 0)
			if mt.partial {
				return q
			}
		}
	}
	return len(s)
}
