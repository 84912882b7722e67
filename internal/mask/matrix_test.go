package mask

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// matrixSecrets are declared together; each has what some encoding turns
// into something else: URL's reserved characters and %, JSON's quotes,
// backslash, HTML characters and a tab, characters beyond ASCII and beyond
// the BMP (a surrogate pair in JSON).
var matrixSecrets = map[string]string{
	"db-admin":  "s3cr3t-P@ss/w+rd=?&%x y",
	"cdn-token": "q\"uote\\back\t<tag>&amp;",
	"unicode":   "naïve-ünï€-😀-ok",
}

// A case of the matrix: how a secret shows in a line, and what the line
// must show instead.
type matrixCase struct {
	name         string
	text, masked string
}

// matrixCases are every form of secret: as written, URL-encoded and
// JSON-escaped, and inside base64 streams of it with 0 to 5 bytes before it
// (every offset in a group of 3, twice) and 0 or 2 after it, in both
// alphabets, padded and raw. The bytes after it have their high bits set,
// so that the character they share with the secret is not by chance the
// one that ends a stream of the secret alone. In a stream, the characters the secret does
// not decide alone stay.
func matrixCases(secret string) []matrixCase {
	var cases []matrixCase
	for _, f := range textForms(secret) {
		cases = append(cases, matrixCase{f.name, f.text, Redacted})
	}
	for before := range 6 {
		for _, after := range []int{0, 2} {
			for _, e := range encodings {
				stream, lo, hi := base64Stream(e.enc, "\xfa\xfb\xfc\xfd\xfe\xff"[:before], secret, "\xfe\xfd"[:after])
				cases = append(cases, matrixCase{
					name:   fmt.Sprintf("base64 %s, %d bytes before, %d after", e.name, before, after),
					text:   stream,
					masked: stream[:lo] + Redacted + stream[hi:],
				})
			}
		}
	}
	return cases
}

func TestMaskingMatrix(t *testing.T) {
	m, err := New(matrixSecrets)
	if err != nil {
		t.Fatal(err)
	}
	var forms []form
	for _, s := range matrixSecrets {
		forms = append(forms, allForms(s)...)
	}
	for name, secret := range matrixSecrets {
		for _, c := range matrixCases(secret) {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				// At the start, in the middle and at the end of a line.
				stream := c.text + " starts\n" + "token=" + c.text + " middle\n" + "ends with " + c.text + "\n"
				want := []string{c.masked + " starts", "token=" + c.masked + " middle", "ends with " + c.masked}
				for _, line := range want {
					for _, f := range forms {
						if strings.Contains(line, f.text) {
							t.Fatalf("the expected line %q shows the %s form: the case is wrong", line, f.name)
						}
					}
				}
				for chunk := 1; chunk <= len(stream); chunk++ {
					got := writeChunks(t, m, Limits{}, stream, func(int) int { return chunk })
					if !slices.Equal(got, want) {
						t.Fatalf("in chunks of %d bytes, the lines are\n%q\nwant\n%q", chunk, got, want)
					}
				}
			})
		}
	}
}

// writeChunks writes stream to a writer of m in chunks of size(i) bytes
// for the i-th chunk, closes it, and returns the lines it emitted.
func writeChunks(t testing.TB, m *Masker, limits Limits, stream string, size func(i int) int) []string {
	t.Helper()
	var lines []string
	w := m.Writer(func(line string) { lines = append(lines, line) }, limits)
	for i := 0; len(stream) > 0; i++ {
		n := min(max(size(i), 1), len(stream))
		if k, err := w.Write([]byte(stream[:n])); err != nil || k != n {
			t.Fatalf("Write = %d, %v; want %d, nil", k, err, n)
		}
		stream = stream[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return lines
}
