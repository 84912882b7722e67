package mask

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestWriterLines(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   []string
	}{
		{"nothing", "", nil},
		{"LF", "one\ntwo\n", []string{"one", "two"}},
		{"CRLF", "one\r\ntwo\r\n", []string{"one", "two"}},
		{"a last line without its break", "one\ntwo", []string{"one", "two"}},
		{"empty lines", "\n\none\n\n", []string{"", "", "one", ""}},
		{"progress redrawn with CR: every state", "10%\r50%\r100%\ndone\n", []string{"10%", "50%", "100%", "done"}},
		{"CR CR LF: an empty line", "a\r\r\nb\n", []string{"a", "", "b"}},
		{"LF CR: two breaks", "a\n\rb", []string{"a", "", "b"}},
		{"control characters escaped", "\x1b[31mred\x1b[0m\ttab\x00", []string{`\x1b[31mred\x1b[0m\ttab\x00`}},
		{"C1 and bidirectional controls escaped", "a\u009b2J\u202eb", []string{`a\u009b2J\u202eb`}},
		{"bytes that are not UTF-8 replaced", "bad \xff\xfe byte\n", []string{"bad \uFFFD byte"}},
		{"secret masked", "token hunter2hunter2\r\n", []string{"token ***"}},
		{"secret across a CR: not recognised", "hunter2\rhunter2\n", []string{"hunter2", "hunter2"}},
		// The secret holds a tab: masked before the tab is escaped.
		{"secret with a tab", "tab\tsecret-value\n", []string{"***"}},
		// The text holds a tab that the escape writes as the secret's \t.
		{"secret written by the escape", "back\tslash-secret\n", []string{"***"}},
	}
	m, err := New(map[string]string{"a": "hunter2hunter2", "b": "tab\tsecret-value", "c": `back\tslash-secret`})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for chunk := 1; chunk <= max(len(tt.stream), 1); chunk++ {
				got := writeChunks(t, m, Limits{}, tt.stream, func(int) int { return chunk })
				if !slices.Equal(got, tt.want) {
					t.Fatalf("in chunks of %d bytes, the lines are %q, want %q", chunk, got, tt.want)
				}
			}
		})
	}
}

func TestWriterClosed(t *testing.T) {
	var lines []string
	w := (*Masker)(nil).Writer(func(l string) { lines = append(lines, l) }, Limits{})
	if _, err := w.Write([]byte("partial")); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 0 {
		t.Fatalf("a partial line was emitted before Close: %q", lines)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("a second Close = %v", err)
	}
	if n, err := w.Write([]byte("more\n")); n != 0 || !errors.Is(err, ErrClosed) {
		t.Fatalf("Write after Close = %d, %v; want 0, ErrClosed", n, err)
	}
	if !slices.Equal(lines, []string{"partial"}) {
		t.Fatalf("lines = %q", lines)
	}
}

func TestLimits(t *testing.T) {
	repeat := func(line string, n int) string { return strings.Repeat(line, n) }
	marker := func(limit, all int) string {
		return fmt.Sprintf(" …(line cut at %d bytes, %d bytes in all)", limit, all)
	}
	// cut is text cut to a line of limit bytes with the marker of a line of
	// all bytes.
	cut := func(limit int, text string, all int) string {
		return text[:limit-len(marker(limit, all))] + marker(limit, all)
	}
	tests := []struct {
		name   string
		limits Limits
		stream string
		want   []string
	}{
		{"a line at the limit stays whole", Limits{Line: 64}, repeat("x", 64) + "\n", []string{repeat("x", 64)}},
		{"a longer line is cut, with its marker", Limits{Line: 80}, repeat("x", 200) + "\nnext\n",
			[]string{repeat("x", 80-len(" …(line cut at 80 bytes, 200 bytes in all)")) + " …(line cut at 80 bytes, 200 bytes in all)", "next"}},
		{"the limit counts the line after its escapes", Limits{Line: 64}, repeat("\x1b", 20) + "\n",
			// The \ of a sixth escape could start an escape of a secret: it goes too.
			[]string{repeat(`\x1b`, 5) + marker(64, 20)}},
		{"the cut keeps whole characters", Limits{Line: 64}, repeat("é", 40) + "\n",
			[]string{repeat("é", 10) + " …(line cut at 64 bytes, 80 bytes in all)"}},
		{"a line too long to keep is counted whole", Limits{Line: 64}, repeat("y", 100_000),
			[]string{cut(64, repeat("y", 64), 100_000)}},
		{"a masked line is measured masked", Limits{Line: 64}, repeat("hunter2hunter2 ", 10) + "\n",
			[]string{repeat("*** ", 10)}},
		{"the default line limit", Limits{}, repeat("z", 5000) + "\n",
			[]string{repeat("z", 4096-len(" …(line cut at 4 KiB, 5000 bytes in all)")) + " …(line cut at 4 KiB, 5000 bytes in all)"}},
		{"total: lines up to the limit, then one line of what was dropped", Limits{Total: 30},
			repeat("line 0001\n", 5),
			[]string{"line 0001", "line 0001", "line 0001", "…(output cut at 30 bytes: 20 more bytes not shown)"}},
		{"total: a line that does not fit is dropped whole", Limits{Total: 15},
			"short\nlonger line\nx\n",
			[]string{"short", "…(output cut at 15 bytes: 14 more bytes not shown)"}},
		{"total: empty lines count", Limits{Total: 10}, repeat("\n", 25),
			[]string{"", "", "", "", "", "", "", "", "", "", "…(output cut at 10 bytes: 15 more bytes not shown)"}},
		{"total: a CRLF split after the limit counts", Limits{Total: 4}, "abc\r\nd\r\n",
			[]string{"abc", "…(output cut at 4 bytes: 3 more bytes not shown)"}},
		{"total: the default", Limits{}, repeat(repeat("w", 1023)+"\n", 1100),
			append(slices.Repeat([]string{repeat("w", 1023)}, 1024), "…(output cut at 1 MiB: 77824 more bytes not shown)")},
	}
	m, err := New(map[string]string{"a": "hunter2hunter2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, chunk := range []int{1, 3, 7, 64, 4096, len(tt.stream)} {
				got := writeChunks(t, m, tt.limits, tt.stream, func(int) int { return chunk })
				if !slices.Equal(got, tt.want) {
					t.Fatalf("in chunks of %d bytes, the lines are\n%.2000q\nwant\n%.2000q", chunk, got, tt.want)
				}
				line := tt.limits.orDefault().Line
				for _, l := range got {
					if len(l) > line {
						t.Fatalf("line of %d bytes over the limit of %d", len(l), line)
					}
				}
			}
		})
	}
}

// A line cut at its limit never shows the start of a secret that goes on
// after the cut, wherever the secret is, in any of its forms: after dots,
// where the cut is the line's limit, and after secrets, which masking
// shrinks so much that the cut is where the line stops being kept. A
// shorter secret at the start of the one cut does not hide it.
func TestLimitsNeverCutASecret(t *testing.T) {
	tests := []struct {
		name    string
		secrets map[string]string
		sought  string
	}{
		{"one secret", map[string]string{"k": "s3cr3t-P@ss/w+rd-€-\t-x"}, "s3cr3t-P@ss/w+rd-€-\t-x"},
		{"one the start of another", map[string]string{"short": "pass-w0rd-", "long": "pass-w0rd-and-more"}, "pass-w0rd-and-more"},
	}
	limits := Limits{Line: 200}
	// fill is n bytes of unit repeated, then dots.
	fill := func(unit string, n int) string {
		s := strings.Repeat(unit, n/len(unit))
		return s + strings.Repeat(".", n-len(s))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(tt.secrets)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range allForms(tt.sought) {
				if strings.ContainsAny(f.text, ".*") {
					t.Fatalf("the %s form %q holds the filler", f.name, f.text)
				}
				for _, unit := range []string{".", tt.sought, tt.sought + "."} {
					// From well before the cut to beyond what a line keeps.
					for at := 0; at < limits.Line+m.maxForm+10; at++ {
						stream := fill(unit, at) + f.text + strings.Repeat(".", 300) + "\n"
						lines := writeChunks(t, m, limits, stream, func(i int) int { return 1 + i%13 })
						if len(lines) != 1 {
							t.Fatalf("%s at %d: lines %q", f.name, at, lines)
						}
						shown, ok := strings.CutSuffix(lines[0], fmt.Sprintf(" …(line cut at 200 bytes, %d bytes in all)", len(stream)-1))
						if !ok || len(lines[0]) > limits.Line {
							t.Fatalf("%s at %d: %q is not a cut line", f.name, at, lines[0])
						}
						if strings.Trim(shown, ".*") != "" {
							t.Fatalf("%s at %d after %q: the cut line shows %q", f.name, at, unit, shown)
						}
					}
				}
			}
		})
	}
}

// stdout and stderr of one run share its total; the last Close tells what
// both dropped, once.
func TestLimitsShared(t *testing.T) {
	var lines []string
	stdout := (*Masker)(nil).Writer(func(l string) { lines = append(lines, l) }, Limits{Total: 20})
	stderr := stdout.Share()
	write := func(w *LineWriter, s string) {
		t.Helper()
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	write(stdout, "out 1\nout")          // "out 1" emitted, "out" pending
	write(stderr, "err 1\nerr 2\nerr 3") // two lines fit, the third is pending
	write(stdout, " 2\n")                // "out 2" does not fit: the run is full
	write(stderr, " and more\n")         // dropped
	if err := stdout.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(lines); n != 3 {
		t.Fatalf("lines before the last Close = %q", lines)
	}
	if err := stderr.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"out 1", "err 1", "err 2", "…(output cut at 20 bytes: 21 more bytes not shown)"}
	if !slices.Equal(lines, want) {
		t.Fatalf("lines = %q, want %q", lines, want)
	}
}
