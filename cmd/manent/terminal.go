package main

import (
	"io"
	"unicode/utf8"

	"manent.dev/manent/deploy"
)

// terminalWriter is what the CLI prints through: it escapes every control
// character (deploy.Escaped) but the new lines and tabs of the CLI's own
// layout, and every byte that is not UTF-8, as the server escapes what it
// stores. A name, an error or a log line, whatever server sent it, cannot
// move the cursor, clear the screen, retitle the window or print a line
// that looks like manent's own. JSON output passes unchanged: its strings
// hold their control characters escaped already (see writeJSON).
type terminalWriter struct {
	w io.Writer
	// cut is the start of a character the last Write ended inside of.
	cut []byte
}

func newTerminalWriter(w io.Writer) *terminalWriter { return &terminalWriter{w: w} }

func (t *terminalWriter) Write(p []byte) (int, error) {
	buf := p
	if len(t.cut) > 0 {
		buf = append(t.cut, p...)
		t.cut = nil
	}
	out := make([]byte, 0, len(buf)+16)
	for i := 0; i < len(buf); {
		r, size := utf8.DecodeRune(buf[i:])
		switch {
		case r == utf8.RuneError && size <= 1 && !utf8.FullRune(buf[i:]):
			// The rest of the character comes with the next Write.
			t.cut = append([]byte(nil), buf[i:]...)
			i = len(buf)
			continue
		case r == utf8.RuneError && size == 1:
			out = append(out, deploy.EscapeText(string(buf[i:i+1]))...)
		case r == '\n' || r == '\t' || !deploy.Escaped(r):
			out = append(out, buf[i:i+size]...)
		default:
			out = append(out, deploy.EscapeRune(r)...)
		}
		i += size
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes, escaped, the start of a character no Write completed.
func (t *terminalWriter) Flush() error {
	if len(t.cut) == 0 {
		return nil
	}
	cut := t.cut
	t.cut = nil
	_, err := io.WriteString(t.w, deploy.EscapeText(string(cut)))
	return err
}
