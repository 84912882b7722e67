package urltemplate

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
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
	inHost  bool
}

// Parse reads raw, a URL whose placeholders name one of fields
// ({{ .Version }}). Anything else a template can do (functions, pipes,
// conditions, ranges) is refused, and so is a placeholder before the path:
// the scheme and host are written in full.
func Parse(raw string, fields []string) (*Template, error) {
	return ParseWith(raw, Options{Fields: fields})
}

// Options say what the placeholders of a template may name.
type Options struct {
	// Fields may stand in the path and the query. A field may be dotted
	// (Target.Path, written {{ .Target.Path }}).
	Fields []string
	// HostFields may also stand in the host and port: values that are
	// themselves a host or a port (Target.Host, Target.Port), which Render
	// checks as such, never free text that could turn the URL elsewhere.
	HostFields []string
}

// ParseWith reads raw as Parse does, with the placeholders of opts.
func ParseWith(raw string, opts Options) (*Template, error) {
	trees, err := parse.Parse("url", raw, "{{", "}}")
	if err != nil {
		return nil, fmt.Errorf("template: %w", cleanParseError(err))
	}
	t := &Template{raw: raw}
	tree := trees["url"]
	if tree == nil || tree.Root == nil {
		return t, checkLiteral(raw)
	}
	all := append(slices.Clone(opts.Fields), opts.HostFields...)
	var text strings.Builder
	for _, n := range tree.Root.Nodes {
		switch n := n.(type) {
		case *parse.TextNode:
			text.Write(n.Text)
			t.parts = append(t.parts, part{text: string(n.Text)})
		case *parse.ActionNode:
			field, err := fieldOf(n, all)
			if err != nil {
				return nil, err
			}
			before := text.String()
			inHost, err := position(before, slices.Contains(opts.HostFields, field))
			if err != nil {
				return nil, err
			}
			t.parts = append(t.parts, part{field: field, inQuery: strings.ContainsAny(before, "?"), inHost: inHost})
			// A stand-in that parses as a host, a port and a path segment.
			text.WriteString("1")
		default:
			if len(all) == 0 {
				return nil, errors.New("template: no placeholder is allowed here")
			}
			return nil, fmt.Errorf("template: only placeholders such as {{ .%s }} are allowed", all[0])
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
// one missing, is an error: it would leave its path segment; so is a value
// in the host that is not a host name, an IP address or a port.
func (t *Template) Render(values map[string]string) (string, error) {
	var b strings.Builder
	host := false
	for _, p := range t.parts {
		if p.field == "" {
			b.WriteString(p.text)
			continue
		}
		v, ok := values[p.field]
		switch {
		case !ok || v == "":
			return "", fmt.Errorf("no value for {{ .%s }}", p.field)
		case p.inHost:
			if !hostValue.MatchString(v) {
				return "", fmt.Errorf("{{ .%s }} is not a host name, an IP address or a port", p.field)
			}
			host = true
			b.WriteString(v)
		case v == "." || v == "..":
			return "", fmt.Errorf("{{ .%s }} is %q: not a path segment", p.field, v)
		case p.inQuery:
			b.WriteString(url.QueryEscape(v))
		default:
			b.WriteString(url.PathEscape(v))
		}
	}
	out := b.String()
	if host {
		// The host is made of values: check what they made, as Parse
		// checked the stand-in.
		if err := checkLiteral(out); err != nil {
			return "", fmt.Errorf("rendered URL: %w", err)
		}
	}
	return out, nil
}

// hostValue is what a value may be in the host: a name, an IPv4 or a
// bracketed IPv6 address, or a port; nothing that ends the host (/, ?, #, @).
var hostValue = regexp.MustCompile(`^[A-Za-z0-9._:\[\]-]{1,253}$`)

func fieldOf(n *parse.ActionNode, fields []string) (string, error) {
	if n.Pipe == nil || len(n.Pipe.Decl) > 0 || len(n.Pipe.Cmds) != 1 || len(n.Pipe.Cmds[0].Args) != 1 {
		return "", fmt.Errorf("template: %s: only a value such as {{ .%s }} is allowed", n, fields[0])
	}
	f, ok := n.Pipe.Cmds[0].Args[0].(*parse.FieldNode)
	if !ok || !slices.Contains(fields, strings.Join(f.Ident, ".")) {
		return "", fmt.Errorf("template: unknown placeholder %s: use one of %s", n, list(fields))
	}
	return strings.Join(f.Ident, "."), nil
}

// position says whether a placeholder after before stands in the host (or
// port), and refuses it there unless hostOK; in the scheme, never.
func position(before string, hostOK bool) (inHost bool, err error) {
	_, rest, ok := strings.Cut(before, "://")
	switch {
	case !ok:
		return false, errors.New("template: a placeholder may not stand in the scheme, which is written in full")
	case strings.ContainsAny(rest, "/?#"):
		return false, nil
	case !hostOK:
		return false, errors.New("template: a placeholder may not stand in the scheme or the host, which are written in full")
	case strings.Contains(rest, "@"):
		return false, errors.New("template: a URL may not carry credentials")
	}
	return true, nil
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
