package urltemplate

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"text/template/parse"
)

// Template is a parsed URL template.
type Template struct {
	raw   string
	parts []part
}

// part is literal text or a placeholder, and where it stands in the URL.
type part struct {
	text    string
	field   string
	inQuery bool
}

// Parse reads raw, a URL whose placeholders name one of fields
// ({{ .Version }}). Anything else a template can do (functions, pipes,
// conditions, ranges) is refused, and so is a placeholder before the path:
// the scheme and host are written in full.
func Parse(raw string, fields []string) (*Template, error) {
	trees, err := parse.Parse("url", raw, "{{", "}}")
	if err != nil {
		return nil, fmt.Errorf("template: %w", cleanParseError(err))
	}
	t := &Template{raw: raw}
	tree := trees["url"]
	if tree == nil || tree.Root == nil {
		return t, checkLiteral(raw)
	}
	var text strings.Builder
	for _, n := range tree.Root.Nodes {
		switch n := n.(type) {
		case *parse.TextNode:
			text.Write(n.Text)
			t.parts = append(t.parts, part{text: string(n.Text)})
		case *parse.ActionNode:
			field, err := fieldOf(n, fields)
			if err != nil {
				return nil, err
			}
			before := text.String()
			if err := checkPrefix(before); err != nil {
				return nil, err
			}
			t.parts = append(t.parts, part{field: field, inQuery: strings.ContainsAny(before, "?")})
			text.WriteString("x")
		default:
			return nil, fmt.Errorf("template: only placeholders such as {{ .%s }} are allowed", fields[0])
		}
	}
	if err := checkLiteral(text.String()); err != nil {
		return nil, err
	}
	return t, nil
}

// String is the template as written.
func (t *Template) String() string { return t.raw }

// Render fills the placeholders with values. A value of "." or "..", or
// one missing, is an error: it would leave its path segment.
func (t *Template) Render(values map[string]string) (string, error) {
	var b strings.Builder
	for _, p := range t.parts {
		if p.field == "" {
			b.WriteString(p.text)
			continue
		}
		v, ok := values[p.field]
		switch {
		case !ok || v == "":
			return "", fmt.Errorf("no value for {{ .%s }}", p.field)
		case v == "." || v == "..":
			return "", fmt.Errorf("{{ .%s }} is %q: not a path segment", p.field, v)
		case p.inQuery:
			b.WriteString(url.QueryEscape(v))
		default:
			b.WriteString(url.PathEscape(v))
		}
	}
	return b.String(), nil
}

func fieldOf(n *parse.ActionNode, fields []string) (string, error) {
	if n.Pipe == nil || len(n.Pipe.Decl) > 0 || len(n.Pipe.Cmds) != 1 || len(n.Pipe.Cmds[0].Args) != 1 {
		return "", fmt.Errorf("template: %s: only a value such as {{ .%s }} is allowed", n, fields[0])
	}
	f, ok := n.Pipe.Cmds[0].Args[0].(*parse.FieldNode)
	if !ok || len(f.Ident) != 1 || !slices.Contains(fields, f.Ident[0]) {
		return "", fmt.Errorf("template: unknown placeholder %s: use one of %s", n, list(fields))
	}
	return f.Ident[0], nil
}

// checkPrefix refuses a placeholder before the path: scheme and host are
// written in full.
func checkPrefix(before string) error {
	_, rest, ok := strings.Cut(before, "://")
	if !ok || !strings.Contains(rest, "/") {
		return errors.New("template: a placeholder may not stand in the scheme or the host, which are written in full")
	}
	return nil
}

func checkLiteral(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return errors.New("must be an absolute http:// or https:// URL without credentials")
	}
	return nil
}

func list(fields []string) string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = "{{ ." + f + " }}"
	}
	return strings.Join(out, ", ")
}

// cleanParseError drops the template name the parser puts first.
func cleanParseError(err error) error {
	return errors.New(strings.TrimPrefix(err.Error(), "template: url:"))
}
