package sshexec

import (
	"bytes"
	"fmt"
	"sync"
	"unicode/utf8"
)

// The caps of a command's output as it is streamed: a line longer than
// MaxLine is cut, and once a run has streamed MaxOutput bytes the rest is
// read and dropped, so a command that prints without end neither fills the
// deploy log nor blocks on a full pipe.
const (
	MaxLine   = 4 << 10
	MaxOutput = 1 << 20
)

// Stream says which output of a command a line comes from.
type Stream string

// The streams of a command.
const (
	Stdout Stream = "stdout"
	Stderr Stream = "stderr"
)

// budget is what a run may still stream, shared by its two streams.
type budget struct {
	mu   sync.Mutex
	left int
	cut  bool
	emit func(Stream, string)
}

func newBudget(emit func(Stream, string)) *budget {
	return &budget{left: MaxOutput, emit: emit}
}

// line hands one line to emit while the budget lasts, and says once that
// the output was cut.
func (b *budget) line(s Stream, line string, cutLine bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cut {
		return
	}
	if len(line) > b.left {
		b.cut = true
		b.emit(Stderr, fmt.Sprintf("[output cut: more than %d bytes]", MaxOutput))
		return
	}
	b.left -= len(line)
	if cutLine {
		line += fmt.Sprintf(" [line cut at %d bytes]", MaxLine)
	}
	b.emit(s, line)
}

// truncated reports whether the run's output was cut.
func (b *budget) truncated() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cut
}

// lineWriter splits what a stream writes into lines for its budget.
type lineWriter struct {
	stream Stream
	b      *budget
	buf    []byte
	// skipping drops the rest of a line already cut.
	skipping bool
}

func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.add(p)
			break
		}
		w.add(p[:i])
		w.end()
		p = p[i+1:]
	}
	return n, nil
}

// add appends to the line being read, cutting it at MaxLine.
func (w *lineWriter) add(p []byte) {
	if w.skipping {
		return
	}
	room := MaxLine - len(w.buf)
	if len(p) <= room {
		w.buf = append(w.buf, p...)
		return
	}
	w.buf = append(w.buf, p[:room]...)
	// Cut before a rune the limit splits, so the line stays UTF-8.
	cut := len(w.buf)
	i := cut - 1
	for i > 0 && cut-i < utf8.UTFMax && !utf8.RuneStart(w.buf[i]) {
		i--
	}
	if i >= 0 && utf8.RuneStart(w.buf[i]) && !utf8.FullRune(w.buf[i:cut]) {
		cut = i
	}
	w.b.line(w.stream, string(bytes.TrimSuffix(w.buf[:cut], []byte("\r"))), true)
	w.buf, w.skipping = w.buf[:0], true
}

// end ends a line.
func (w *lineWriter) end() {
	if !w.skipping {
		w.b.line(w.stream, string(bytes.TrimSuffix(w.buf, []byte("\r"))), false)
	}
	w.buf, w.skipping = w.buf[:0], false
}

// flush emits a last line without its newline.
func (w *lineWriter) flush() {
	if len(w.buf) > 0 && !w.skipping {
		w.end()
	}
}
