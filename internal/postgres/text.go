package postgres

import "strings"

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
