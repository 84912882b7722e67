package postgres

import (
	"strings"

	"manent.dev/manent/deploy"
)

// text is s as PostgreSQL stores it: valid UTF-8 without NUL, which a text
// or jsonb column refuses. The store's queries (bun) clean their strings
// the same way; the Recorder's parameters (pgx) are sent as they are, and
// hold text from outside (a plugin's error, an archive's entry names, a
// command's output): a hostile byte must not stop a deploy's record.
func text(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// textMap is m with every key and value cleaned by text; never nil.
func textMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[text(k)] = text(v)
	}
	return out
}

// line is a log line's message or an error as the store keeps it: one
// line of text a terminal shows as it is, every control character escaped
// (deploy.EscapeText), which leaves no NUL and no invalid UTF-8 either.
// Every writer of the read model passes its messages through it, whatever
// produced them.
func line(s string) string { return deploy.EscapeText(s) }
