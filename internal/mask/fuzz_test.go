package mask

import (
	"strings"
	"testing"
	"unicode/utf8"

	"manent.dev/manent/deploy"
)

// FuzzNoSecretInLines: whatever the secret (of MinLen bytes or more), the
// text around it, the chunks it is written in and the line limit, no line
// emitted shows any form of it, and every line is one line fit for a
// terminal, within its limit.
func FuzzNoSecretInLines(f *testing.F) {
	f.Add("hunter2hunter2", "password=", " ok", uint8(0))
	f.Add("s3cr3t-P@ss/w+rd=?&%", "curl -u admin:", "\r\nnext", uint8(3))
	f.Add("q\"uote\\back\t<tag>&amp;", `{"token":"`, `"}`, uint8(7))
	f.Add("naïve-ünï€-😀-ok", "\x1b[31m", "\xff\xfe", uint8(200))
	f.Add("100%%%%%sure", "%25%", "%%", uint8(1))
	f.Add(`C:\\\\x\u0041`, `\\\`, `\u00`, uint8(9))
	f.Add("-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\nabc\n", "key: ", "", uint8(13))
	f.Add("ab***cdefgh", "abab", "cdefgh", uint8(42))
	f.Add("bin\xff\xfe\x00ary-secret", "\xef\xbf", "\xbd", uint8(5))
	f.Add("tab\tsecret-value", "back\t", "\r", uint8(255))
	f.Add("0123456789", strings.Repeat("x", 70), strings.Repeat("y", 70), uint8(0))
	f.Fuzz(func(t *testing.T, secret, before, after string, seed uint8) {
		if len(strings.TrimRight(secret, "\r\n")) < MinLen || len(secret) > 256 {
			t.Skip()
		}
		m, err := New(map[string]string{"k": secret})
		if err != nil {
			t.Fatalf("New refused a secret of %d bytes: %v", len(secret), err)
		}
		forms := allForms(secret)
		var stream strings.Builder
		for _, f := range forms {
			stream.WriteString(before + f.text + after + "\n")
		}
		// Line limits from the smallest to beyond the longest line, chunks
		// of every size from 1 to 23 bytes in an order the seed decides.
		limits := Limits{Line: minLine + 7*int(seed)}
		s := int(seed)
		lines := writeChunks(t, m, limits, stream.String(), func(i int) int { return 1 + (s*i+i*i)%23 })
		if len(lines) == 0 {
			t.Fatal("no line emitted")
		}
		for _, line := range lines {
			checkLine(t, line, limits.Line)
			for _, f := range forms {
				if strings.Contains(line, f.text) {
					t.Fatalf("line %q shows the %s form %q", line, f.name, f.text)
				}
			}
		}
	})
}

// What a writer emits is one line fit for a terminal, whatever it is given.
func checkLine(t *testing.T, line string, limit int) {
	t.Helper()
	if !utf8.ValidString(line) {
		t.Fatalf("line %q is not UTF-8", line)
	}
	if deploy.EscapeText(line) != line {
		t.Fatalf("line %q holds what a terminal acts on", line)
	}
	if len(line) > limit {
		t.Fatalf("line of %d bytes over the limit of %d: %q", len(line), limit, line)
	}
}
