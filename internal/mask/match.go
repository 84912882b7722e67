package mask

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxExpansion is how many bytes of text one byte of a value can take at
// most in a form the matcher decodes: \u0041 stands for A.
const maxExpansion = 6

// A matcher reads text as a value written in any mix of the encodings a
// secret passes through on its way to a log, one byte or rune at a time:
// as it is, %XX (any case, and + for a space), a JSON escape (\" \\ \/ \b
// \f \n \r \t, \uXXXX in any case, a surrogate pair, \ufffd for a byte
// that is not UTF-8) and an escape of deploy.EscapeText (\xNN). So one
// matcher per value covers QueryEscape and PathEscape, upper- and
// lower-case hex, encoding/json with and without HTML escaping, and what
// a log's escaping makes of a control character.
type matcher struct {
	in string // the text
	v  string // the value sought
	// partial is set when some reading ran into the end of in before the
	// value was complete: more text could have completed it.
	partial bool
	// memo holds the result of the forks already explored: a value with
	// many % or \ read against text with many of them would otherwise be
	// explored along every reading.
	memo map[[2]int]int
}

// from is the end of the longest reading of in[j:] as v[k:] completed, -1
// when there is none.
func (mt *matcher) from(j, k int) int {
	for k < len(mt.v) {
		if j >= len(mt.in) {
			mt.partial = true
			return -1
		}
		c := mt.in[j]
		literal := c == mt.v[k]
		if !mayEscape(c) {
			if !literal {
				return -1
			}
			j, k = j+1, k+1
			continue
		}
		ej, ek, escaped := mt.escape(j, k)
		if !literal && !escaped {
			ej, ek, escaped = mt.replacement(j, k)
		}
		switch {
		case literal && escaped:
			// Only a % or a \ of the value reads both ways: %25 is a % or
			// the start of "%25".
			return mt.fork(j, k, ej, ek)
		case literal:
			j, k = j+1, k+1
		case escaped:
			j, k = ej, ek
		default:
			return -1
		}
	}
	return j
}

// mayEscape reports whether c can start an escape or a U+FFFD.
func mayEscape(c byte) bool {
	return c == '%' || c == '\\' || c == '+' || c == 0xef
}

func (mt *matcher) fork(j, k, ej, ek int) int {
	key := [2]int{j, k}
	if end, ok := mt.memo[key]; ok {
		return end
	}
	end := max(mt.from(j+1, k+1), mt.from(ej, ek))
	if mt.memo == nil {
		mt.memo = map[[2]int]int{}
	}
	mt.memo[key] = end
	return end
}

// escape reads an escape at in[j] that stands for the next bytes of v[k:]:
// where the text and the value continue after it, and whether it does.
func (mt *matcher) escape(j, k int) (int, int, bool) {
	in, want := mt.in, mt.v[k]
	switch in[j] {
	case '+':
		return j + 1, k + 1, want == ' '
	case '%':
		b, ok := mt.hexByte(j + 1)
		return j + 3, k + 1, ok && b == want
	case '\\':
	default:
		return 0, 0, false
	}
	if j+1 >= len(in) {
		mt.partial = true
		return 0, 0, false
	}
	switch c := in[j+1]; c {
	case 'x':
		b, ok := mt.hexByte(j + 2)
		return j + 4, k + 1, ok && b == want
	case 'u':
		return mt.unicode(j, k)
	default:
		b, ok := shortEscape(c)
		return j + 2, k + 1, ok && b == want
	}
}

// unicode reads \uXXXX, or a surrogate pair of them, at in[j].
func (mt *matcher) unicode(j, k int) (int, int, bool) {
	u, ok := mt.hex4(j + 2)
	if !ok {
		return 0, 0, false
	}
	r, next := rune(u), j+6
	if utf16.IsSurrogate(r) {
		if next+2 > len(mt.in) {
			mt.partial = true
			return 0, 0, false
		}
		if mt.in[next] != '\\' || mt.in[next+1] != 'u' {
			return 0, 0, false
		}
		low, ok := mt.hex4(next + 2)
		if !ok {
			return 0, 0, false
		}
		if r = utf16.DecodeRune(r, rune(low)); r == utf8.RuneError {
			return 0, 0, false
		}
		next += 6
	}
	rest := mt.v[k:]
	if r == utf8.RuneError {
		// encoding/json writes \ufffd for each byte that is not UTF-8.
		if got, size := utf8.DecodeRuneInString(rest); got == utf8.RuneError && size == 1 {
			return next, k + 1, true
		}
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	if len(rest) < n || rest[:n] != string(buf[:n]) {
		return 0, 0, false
	}
	return next, k + n, true
}

// replacement reads a U+FFFD at in[j] as the bytes that are not UTF-8 at
// v[k:]: the log writes one for each run of them (strings.ToValidUTF8).
func (mt *matcher) replacement(j, k int) (int, int, bool) {
	const fffd = "\uFFFD"
	if !strings.HasPrefix(mt.in[j:], fffd) {
		if strings.HasPrefix(fffd, mt.in[j:]) {
			mt.partial = true
		}
		return 0, 0, false
	}
	end := k
	for end < len(mt.v) {
		if r, size := utf8.DecodeRuneInString(mt.v[end:]); r != utf8.RuneError || size != 1 {
			break
		}
		end++
	}
	return j + len(fffd), end, end > k
}

// hexByte reads two hex digits at in[i].
func (mt *matcher) hexByte(i int) (byte, bool) {
	if i+2 > len(mt.in) {
		mt.partial = true
		return 0, false
	}
	hi, ok1 := unhex(mt.in[i])
	lo, ok2 := unhex(mt.in[i+1])
	return hi<<4 | lo, ok1 && ok2
}

// hex4 reads four hex digits at in[i].
func (mt *matcher) hex4(i int) (uint16, bool) {
	if i+4 > len(mt.in) {
		mt.partial = true
		return 0, false
	}
	var u uint16
	for _, c := range []byte(mt.in[i : i+4]) {
		d, ok := unhex(c)
		if !ok {
			return 0, false
		}
		u = u<<4 | uint16(d)
	}
	return u, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// shortEscape is the byte a two-character JSON escape stands for.
func shortEscape(c byte) (byte, bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}
