package mask

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The forms of a secret the tests look for, made with the standard library
// and not with the package's own code, so that they check it.

type form struct{ name, text string }

var upperHex = regexp.MustCompile(`%[0-9A-F]{2}`)

// textForms are the secret as written, URL-encoded and JSON-escaped.
func textForms(secret string) []form {
	lower := func(s string) string { return upperHex.ReplaceAllStringFunc(s, strings.ToLower) }
	fs := []form{
		{"plain", secret},
		{"query", url.QueryEscape(secret)},
		{"query lower-case", lower(url.QueryEscape(secret))},
		{"path", url.PathEscape(secret)},
		{"path lower-case", lower(url.PathEscape(secret))},
		{"json", jsonContent(secret, true)},
		{"json without HTML escaping", jsonContent(secret, false)},
		{`json \u`, jsonUnicode(secret, "%04x")},
		{`json \U`, jsonUnicode(secret, "%04X")},
	}
	return fs
}

// jsonContent is what encoding/json writes between the quotes of s.
func jsonContent(s string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// jsonUnicode is s with every character encoding/json escapes written as
// \uXXXX, the hex digits as format writes them.
func jsonUnicode(s, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\u` + fmt.Sprintf(format, utf8.RuneError))
		case r < 0x20, r == '"', r == '\\', r == '<', r == '>', r == '&', r == 0x2028, r == 0x2029:
			b.WriteString(`\u` + fmt.Sprintf(format, r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

var encodings = []struct {
	name string
	enc  *base64.Encoding
}{
	{"std", base64.StdEncoding},
	{"url", base64.URLEncoding},
	{"raw std", base64.RawStdEncoding},
	{"raw url", base64.RawURLEncoding},
}

// base64Stream is the base64 stream of prefix, secret and suffix, and the
// span of it that the secret alone decides: the characters that stay the
// same whether the bytes around the secret are all zeros or all ones.
func base64Stream(enc *base64.Encoding, prefix, secret, suffix string) (stream string, lo, hi int) {
	stream = enc.EncodeToString([]byte(prefix + secret + suffix))
	zeros := enc.EncodeToString([]byte(strings.Repeat("\x00", len(prefix)) + secret + strings.Repeat("\x00", len(suffix))))
	ones := enc.EncodeToString([]byte(strings.Repeat("\xff", len(prefix)) + secret + strings.Repeat("\xff", len(suffix))))
	lo = 0
	for zeros[lo] != ones[lo] {
		lo++
	}
	hi = lo
	for hi < len(zeros) && zeros[hi] == ones[hi] {
		hi++
	}
	return stream, lo, hi
}

// base64Forms are the spans of base64 streams a secret alone decides, at
// every offset, in both alphabets, padded and raw, inside the stream and
// at its end.
func base64TestForms(secret string) []form {
	var fs []form
	for offset := range 3 {
		for _, e := range encodings {
			for _, suffix := range []string{"", "\x00\x00\x00"} {
				stream, lo, hi := base64Stream(e.enc, strings.Repeat("\x00", offset), secret, suffix)
				fs = append(fs, form{fmt.Sprintf("base64 %s offset %d suffix %d", e.name, offset, len(suffix)), stream[lo:hi]})
			}
		}
	}
	return fs
}

// allForms are every form of secret and of secret without its final line
// break, and the forms as written, URL-encoded and JSON-escaped of each of
// its lines of MinLen bytes or more.
func allForms(secret string) []form {
	fs := append(textForms(secret), base64TestForms(secret)...)
	if trimmed := strings.TrimRight(secret, "\r\n"); trimmed != secret {
		fs = append(fs, textForms(trimmed)...)
		fs = append(fs, base64TestForms(trimmed)...)
	}
	for _, line := range strings.FieldsFunc(secret, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if line != secret && len(line) >= MinLen {
			fs = append(fs, textForms(line)...)
		}
	}
	return fs
}
