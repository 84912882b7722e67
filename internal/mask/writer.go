package mask

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"manent.dev/manent/deploy"
)

// The default limits of a run's output.
const (
	DefaultLine  = 4 << 10
	DefaultTotal = 1 << 20
	// minLine leaves room for the marker of a cut line and some text before it.
	minLine = 64
)

// ErrClosed is what a write to a closed LineWriter returns.
var ErrClosed = errors.New("write to a closed line writer")

// Limits bound what a LineWriter emits; zero or less is the default.
type Limits struct {
	// Line is the most bytes of an emitted line, its marker included (at
	// least 64, so that the marker fits).
	Line int
	// Total is the most bytes a run emits, counting one for each line's
	// break: a run of empty lines has its limit too.
	Total int
}

func (l Limits) orDefault() Limits {
	if l.Line <= 0 {
		l.Line = DefaultLine
	}
	l.Line = max(l.Line, minLine)
	if l.Total <= 0 {
		l.Total = DefaultTotal
	}
	return l
}

// A LineWriter cuts a stream of output into lines and emits each one
// masked, escaped as one line of text (deploy.EscapeText, after bytes that
// are not UTF-8 become U+FFFD) and bounded. LF, CRLF and a lone CR each end
// a line: a progress bar redrawn with CR shows every state it was in, as
// the log cannot draw over a line. A line longer than Limits.Line is cut
// with a marker " …(line cut at 4 KiB, N bytes in all)", never inside a
// secret's form; once the run has emitted Limits.Total bytes, the rest is
// dropped and counted, and the last Close emits one line saying how much.
// A write never fails before Close, so the command is never stopped by its
// own output.
//
// Its methods are safe for concurrent use, and emit is called with a lock
// held: emit sees the lines of all the writers of a run one at a time, in
// order, and must not call back into them.
type LineWriter struct {
	m   *Masker
	run *run
	// line is the start of the current line, as much of it as can show;
	// over counts its bytes beyond.
	line []byte
	over int
	// afterCR: the last byte written was a CR that ended a line, so an LF
	// coming next completes a CRLF, it is no empty line.
	afterCR   bool
	lastShown bool
	closed    bool
}

// run is what the writers of one run share: emit, the limits, the budget.
type run struct {
	mu      sync.Mutex
	emit    func(line string)
	limits  Limits
	emitted int
	full    bool
	dropped int
	open    int
	noticed bool
}

// Writer is a LineWriter of one run that emits its lines with emit.
func (m *Masker) Writer(emit func(line string), limits Limits) *LineWriter {
	return &LineWriter{m: m, run: &run{emit: emit, limits: limits.orDefault(), open: 1}}
}

// Share is another writer of the same run, for another stream (stderr
// beside stdout): lines of its own, the same emit and the same limits,
// Total for both. Every writer of a run must be closed: the last Close
// says what the run dropped.
func (w *LineWriter) Share() *LineWriter {
	w.run.mu.Lock()
	defer w.run.mu.Unlock()
	w.run.open++
	return &LineWriter{m: w.m, run: w.run}
}

// Write takes p whatever its cut: a line is masked once it is complete.
func (w *LineWriter) Write(p []byte) (int, error) {
	r := w.run
	r.mu.Lock()
	defer r.mu.Unlock()
	if w.closed {
		return 0, ErrClosed
	}
	n := len(p)
	for len(p) > 0 {
		if w.afterCR {
			w.afterCR = false
			if p[0] == '\n' {
				if !w.lastShown {
					r.dropped++
				}
				p = p[1:]
				continue
			}
		}
		if r.full {
			w.dropPending()
			r.dropped += len(p)
			break
		}
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			w.keep(p)
			break
		}
		w.keep(p[:i])
		end := 1
		if p[i] == '\r' {
			switch {
			case i+1 == len(p):
				w.afterCR = true
			case p[i+1] == '\n':
				end = 2
			}
		}
		w.endLine(end)
		p = p[i+end:]
	}
	return n, nil
}

// Close emits the last line, even without its line break; the last writer
// of a run to close says what the run dropped.
func (w *LineWriter) Close() error {
	r := w.run
	r.mu.Lock()
	defer r.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if len(w.line) > 0 || w.over > 0 {
		w.endLine(0)
	}
	r.open--
	if r.open == 0 && r.full && !r.noticed {
		r.noticed = true
		r.emit(w.m.String(fmt.Sprintf("…(output cut at %s: %d more bytes not shown)", size(r.limits.Total), r.dropped)))
	}
	return nil
}

// keep adds b to the current line, up to what can show of it: the most a
// line shows and the longest form of a secret beyond, so that a secret
// across the limit is masked whole.
func (w *LineWriter) keep(b []byte) {
	room := w.run.limits.Line + w.maxForm() - len(w.line)
	if len(b) > room {
		w.over += len(b) - room
		b = b[:room]
	}
	w.line = append(w.line, b...)
}

func (w *LineWriter) maxForm() int {
	if w.m == nil {
		return 0
	}
	return w.m.maxForm
}

func (w *LineWriter) dropPending() {
	w.run.dropped += len(w.line) + w.over
	w.line, w.over = w.line[:0], 0
}

// endLine emits the current line, its break end bytes long, if the run
// still may.
func (w *LineWriter) endLine(end int) {
	r := w.run
	w.lastShown = false
	if r.full {
		r.dropped += end
		w.dropPending()
		return
	}
	out := w.render()
	if r.emitted+len(out)+1 > r.limits.Total {
		r.full = true
		r.dropped += end
		w.dropPending()
		return
	}
	w.line, w.over = w.line[:0], 0
	r.emitted += len(out) + 1
	w.lastShown = true
	r.emit(out)
}

// render is the current line as it shows: masked, escaped, masked again
// (an escape can write a secret: \t for a tab), and cut to the limit.
func (w *LineWriter) render() string {
	m, limit := w.m, w.run.limits.Line
	raw := string(w.line)
	if w.over > 0 {
		// The kept part of a longer line can end inside a secret's form,
		// whose start must not show; it is found before masking, as a
		// shorter secret at the start of a longer one would be masked and
		// hide it. Without a secret there, the cut still keeps whole
		// characters.
		raw = raw[:m.partialStart(raw)]
		raw = raw[:completeRunes(raw)]
	}
	s := m.String(raw)
	t := deploy.EscapeText(strings.ToValidUTF8(s, "\uFFFD"))
	if t != s {
		t = m.String(t)
	}
	if w.over == 0 && len(t) <= limit {
		return t
	}
	marker := fmt.Sprintf(" …(line cut at %s, %d bytes in all)", size(limit), len(w.line)+w.over)
	if keep := max(limit-len(marker), 0); len(t) > keep {
		for keep > 0 && !utf8.RuneStart(t[keep]) {
			keep--
		}
		t = t[:keep]
	}
	// What the cut leaves at the end could be the start of a secret that
	// went on after it (one the escapes wrote): it goes too.
	t = t[:m.partialStart(t)]
	// The marker cannot bring a secret together with the text before it,
	// but a secret could be anything.
	return m.String(t + marker)
}

// completeRunes is the length of s without the start of a character it
// ends with, if it does.
func completeRunes(s string) int {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return i
			}
			break
		}
	}
	return len(s)
}

// size is n bytes written for a person.
func size(n int) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
