package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"manent.dev/manent/deploy"
)

type format string

const (
	formatTable format = "table"
	formatJSON  format = "json"
	formatYAML  format = "yaml"
)

func parseFormat(s string) (format, error) {
	switch f := format(strings.ToLower(strings.TrimSpace(s))); f {
	case formatTable, formatJSON, formatYAML:
		return f, nil
	case "yml":
		return formatYAML, nil
	}
	return "", fmt.Errorf("unknown output format %q: use table, json or yaml", s)
}

// emit writes v as JSON or YAML, or calls table for the table format. v is
// marshaled with encoding/json in both data formats, so the YAML has the
// JSON's keys in the same order.
func (a *app) emit(v any, table func(w io.Writer) error) error {
	return writeAs(a.stdout, a.format, v, table)
}

func writeAs(w io.Writer, f format, v any, table func(w io.Writer) error) error {
	switch f {
	case formatJSON:
		return writeJSON(w, v)
	case formatYAML:
		return writeYAML(w, v)
	}
	return table(w)
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode json: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return fmt.Errorf("encode json: %w", err)
	}
	out.WriteByte('\n')
	_, err = w.Write(jsonSafe(out.Bytes()))
	return err
}

// jsonSafe escapes, as \uXXXX, the characters of JSON text that
// encoding/json leaves raw in its strings and a terminal would act on
// (DEL, C1 controls, bidirectional controls): the JSON says the same and
// passes a terminalWriter unchanged. Outside strings, JSON text has only
// spaces and new lines.
func jsonSafe(b []byte) []byte {
	if !bytes.ContainsFunc(b, func(r rune) bool { return r != '\n' && r != '\t' && deploy.Escaped(r) }) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r != '\n' && r != '\t' && deploy.Escaped(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}

// writeYAML converts v's JSON into block-style YAML, keeping key order and
// quoting the strings YAML would read as something else ("true", "1.0", a
// timestamp).
func writeYAML(w io.Writer, v any) error {
	n, err := yamlNode(v)
	if err != nil {
		return err
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return fmt.Errorf("encode yaml: %w", err)
	}
	return enc.Close()
}

func yamlNode(v any) (*yaml.Node, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	// YAML refuses raw control characters where JSON allows some (DEL,
	// C1): escaped, the YAML parser reads them as the JSON meant.
	var n yaml.Node
	if err := yaml.Unmarshal(jsonSafe(b), &n); err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	blockStyle(&n)
	return &n, nil
}

// blockStyle drops the flow and quoting styles JSON parsing gives every
// node; the encoder quotes again where plain style would change the type.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// newTable returns a writer that aligns tab-separated columns.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}

// row writes one table row; empty cells show as "-" so columns stay aligned,
// and every cell is one line, its control characters escaped
// (deploy.EscapeText): a cell from the server cannot break the table or
// print a line of its own. It takes the tabwriter, not any writer, because
// it leaves the error to it: a failed write of the output comes back from
// Flush, which every table checks.
func row(tw *tabwriter.Writer, cells ...string) {
	for i, c := range cells {
		if c == "" {
			c = "-"
		}
		cells[i] = deploy.EscapeText(c)
	}
	_, _ = fmt.Fprintln(tw, strings.Join(cells, "\t"))
}

// timestamp prints an instant the same way everywhere: UTC, to the second.
func timestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

// duration prints a duration compactly: 850ms, 1.2s, 42s, 3m05s, 1h02m.
func duration(d time.Duration) string {
	switch {
	case d < 0:
		return ""
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// span is the duration between two instants, "" when either is unknown.
func span(from, to time.Time) string {
	if from.IsZero() || to.IsZero() {
		return ""
	}
	return duration(to.Sub(from))
}

// shortSHA keeps enough of a digest to recognise it in a table.
func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// rawObject splits a JSON object into its members, keeping their text (and
// so their order inside each member).
func rawObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("decode status json: %w", err)
	}
	return m, nil
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// seconds prints a whole number of seconds as a duration, "" for none.
func seconds(n int) string {
	if n <= 0 {
		return ""
	}
	return duration(time.Duration(n) * time.Second)
}

// writeJSONLine writes v as one compact line.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode json: %w", err)
	}
	_, err = w.Write(jsonSafe(append(b, '\n')))
	return err
}
