package itsm

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// jsonPath is a parsed path into a decoded JSON document: $.a.b[0] or
// $["a.b"]. Filters, wildcards and recursive descent are deliberately absent:
// a connector names one field of an answer.
type jsonPath struct {
	raw  string
	segs []pathSeg
}

// pathSeg is one step: a member name, or an array index when isIndex.
type pathSeg struct {
	key     string
	index   int
	isIndex bool
}

func (p jsonPath) String() string { return p.raw }

// parseJSONPath reads $ followed by .name, [index], ["name"] or ['name'].
func parseJSONPath(s string) (jsonPath, error) {
	p := jsonPath{raw: s}
	if !strings.HasPrefix(s, "$") {
		return p, fmt.Errorf("must start with $")
	}
	rest := s[1:]
	for rest != "" {
		var seg pathSeg
		var err error
		switch rest[0] {
		case '.':
			seg, rest, err = parseMember(rest[1:])
		case '[':
			seg, rest, err = parseBracket(rest[1:])
		default:
			err = fmt.Errorf("unexpected %q at offset %d", rest[0], len(s)-len(rest))
		}
		if err != nil {
			return p, err
		}
		p.segs = append(p.segs, seg)
	}
	return p, nil
}

func parseMember(s string) (pathSeg, string, error) {
	end := strings.IndexAny(s, ".[")
	if end < 0 {
		end = len(s)
	}
	name := s[:end]
	if name == "" {
		return pathSeg{}, "", fmt.Errorf("empty member name after '.'")
	}
	if strings.ContainsAny(name, "]\"' ") {
		return pathSeg{}, "", fmt.Errorf("member %q: use [\"...\"] for names with quotes, brackets or spaces", name)
	}
	return pathSeg{key: name}, s[end:], nil
}

func parseBracket(s string) (pathSeg, string, error) {
	if s == "" {
		return pathSeg{}, "", fmt.Errorf("unclosed [")
	}
	if q := s[0]; q == '"' || q == '\'' {
		return parseQuoted(s, q)
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return pathSeg{}, "", fmt.Errorf("unclosed [")
	}
	i, err := strconv.Atoi(s[:end])
	if err != nil || i < 0 || s[0] == '+' {
		return pathSeg{}, "", fmt.Errorf("index %q must be a non-negative integer", s[:end])
	}
	return pathSeg{index: i, isIndex: true}, s[end+1:], nil
}

// parseQuoted reads a quoted member name; a backslash escapes the next
// character, so ["a\"b"] names a"b.
func parseQuoted(s string, quote byte) (pathSeg, string, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == quote:
			if i+1 >= len(s) || s[i+1] != ']' {
				return pathSeg{}, "", fmt.Errorf("expected ] after quoted name")
			}
			return pathSeg{key: b.String()}, s[i+2:], nil
		default:
			b.WriteByte(c)
		}
	}
	return pathSeg{}, "", fmt.Errorf("unterminated quoted name")
}

// lookup returns the value at p in doc (as decoded by encoding/json), and
// false when a member or index is absent or the shape differs.
func (p jsonPath) lookup(doc any) (any, bool) {
	v := doc
	for _, s := range p.segs {
		if s.isIndex {
			a, ok := v.([]any)
			if !ok || s.index >= len(a) {
				return nil, false
			}
			v = a[s.index]
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[s.key]; !ok {
			return nil, false
		}
	}
	return v, true
}

// scalarString renders a scalar found at a path as text to compare or keep:
// ids and states are strings in most ITSMs, numbers in some.
func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	case nil:
		return "", true
	}
	return "", false
}
