package urltemplate

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"text/template/parse"
)

// Template is a parsed URL template.
type Template struct {
	raw   string
	parts []part
	// authority is set when a placeholder stands in the host or the port:
	// Render then checks the URL it writes.
	authority bool
}

// part is literal text or a placeholder, and where it stands in the URL.
type part struct {
	text  string
	field string
	where position
	// bare is set for a placeholder that is the start of the host (an IPv6
	// address is then written in brackets); bracketed for one inside
	// brackets written by the template ([{{ .Host }}]).
	bare, bracketed bool
}

// position is where a placeholder stands, which decides how its value is
// written.
type position int

const (
	inPath position = iota
	inQuery
	inHost
	inPort
)

// Parse reads raw, a URL whose placeholders name one of fields
// ({{ .Version }}, or {{ .Target.Host }} for a field "Target.Host").
// Anything else a template can do (functions, pipes, conditions, ranges) is
// refused, and so is a placeholder before the path: the scheme and host are
// written in full.
func Parse(raw string, fields []string) (*Template, error) {
	return ParseHost(raw, fields, nil)
}

// ParseHost is Parse where the fields of hostFields may also stand in the
// host or the port (https://{{ .Target.Host }}:{{ .Target.Port }}/health),
// for a URL that calls each target in turn. There Render takes a value only
// if it is a host name, an IP address or a port number: no value can add
// user info, a path or another host, so the request goes to the host the
// value names and nowhere else. The scheme is always written in full.
func ParseHost(raw string, fields, hostFields []string) (*Template, error) {
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
			p, err := place(text.String(), field, hostFields)
			if err != nil {
				return nil, err
			}
			t.parts = append(t.parts, p)
			// The literal checked below holds a value valid where the
			// placeholder stands.
			switch {
			case p.where == inPort:
				text.WriteString("1")
			case p.bracketed:
				text.WriteString("::1")
			default:
				text.WriteString("x")
			}
			t.authority = t.authority || p.where == inHost || p.where == inPort
		default:
			return nil, fmt.Errorf("template: only placeholders such as {{ .%s }} are allowed", fields[0])
		}
	}
	if err := checkLiteral(text.String()); err != nil {
		return nil, err
	}
	return t, nil
}

// place says where a placeholder of field stands, the URL before it being
// before (placeholders earlier in it already filled with a sample value).
func place(before, field string, hostFields []string) (part, error) {
	_, rest, ok := strings.Cut(before, "://")
	if ok && strings.ContainsAny(rest, "/?#") {
		if strings.ContainsAny(before, "?#") {
			return part{field: field, where: inQuery}, nil
		}
		return part{field: field, where: inPath}, nil
	}
	if !ok || !slices.Contains(hostFields, field) {
		return part{}, errors.New("template: a placeholder may not stand in the scheme or the host, which are written in full")
	}
	if strings.Contains(rest, "@") {
		return part{}, errors.New("must be an absolute http:// or https:// URL without credentials")
	}
	hostPort := rest
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return part{field: field, where: inHost, bracketed: true}, nil
		}
		hostPort = rest[end+1:]
	}
	if strings.Contains(hostPort, ":") {
		return part{field: field, where: inPort}, nil
	}
	return part{field: field, where: inHost, bare: rest == ""}, nil
}

// HostIs reports whether the URL's host is the value of field and nothing
// more (https://{{ .Target.Host }}:8080/health, http://[{{ .Target.Host }}]/),
// so that whoever wrote the template chose no host of its own: not
// https://{{ .Target.Host }}.example.net/ nor https://h/{{ .Target.Host }}.
func (t *Template) HostIs(field string) bool {
	j := slices.IndexFunc(t.parts, func(p part) bool { return p.where == inHost })
	if j < 1 || t.parts[j].field != field || t.parts[j-1].field != "" {
		return false
	}
	p, before := t.parts[j], t.parts[j-1].text
	end := ":/?#"
	switch {
	case p.bare && strings.HasSuffix(before, "://"):
	case p.bracketed && strings.HasSuffix(before, "://["):
		end = "]"
	default:
		return false
	}
	if j == len(t.parts)-1 {
		return !p.bracketed
	}
	after := t.parts[j+1]
	return after.field == "" && after.text != "" && strings.ContainsRune(end, rune(after.text[0]))
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
		case p.where == inHost:
			h, err := hostValue(v, p)
			if err != nil {
				return "", err
			}
			b.WriteString(h)
		case p.where == inPort:
			if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != v {
				return "", fmt.Errorf("{{ .%s }} is %q: not a port number", p.field, v)
			}
			b.WriteString(v)
		case v == "." || v == "..":
			return "", fmt.Errorf("{{ .%s }} is %q: not a path segment", p.field, v)
		case p.where == inQuery:
			b.WriteString(url.QueryEscape(v))
		default:
			b.WriteString(url.PathEscape(v))
		}
	}
	if t.authority {
		// Each value was checked alone; what they make together must still
		// be one http(s) URL to one host.
		if err := checkLiteral(b.String()); err != nil {
			return "", fmt.Errorf("the filled URL %w", err)
		}
	}
	return b.String(), nil
}

// hostValue is v written as (part of) a host: a host name or an IPv4
// address anywhere, an IPv6 address only as the whole host (put in brackets
// unless the template wrote them), never a zone, a port or anything else.
func hostValue(v string, p part) (string, error) {
	if a, err := netip.ParseAddr(v); err == nil && a.Is6() && a.Zone() == "" {
		switch {
		case p.bracketed:
			return v, nil
		case p.bare:
			return "[" + v + "]", nil
		}
	}
	if !p.bracketed && hostName(v) {
		return v, nil
	}
	return "", fmt.Errorf("{{ .%s }} is %q: not a host name or an IP address", p.field, v)
}

// hostName reports whether s is made of the characters of a host name (and
// of an IPv4 address): letters, digits, '-', '_' and '.', not first.
func hostName(s string) bool {
	if s == "" || len(s) > 253 || s[0] == '.' || s[0] == '-' {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

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

func checkLiteral(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return errors.New("must be an absolute http:// or https:// URL without credentials")
	}
	// url.Parse takes any digits for a port: a URL that could never be
	// called is refused where it is written, not when it is first called.
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return errors.New("must have a port between 1 and 65535")
		}
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
