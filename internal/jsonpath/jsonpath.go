package jsonpath

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxLen bounds a path: a longer one is no path anyone means.
const maxLen = 512

// Path is a parsed JSON path: the members and indexes from the root.
type Path struct {
	text  string
	steps []step
}

// step is one member (name) or one list index (index >= 0).
type step struct {
	name  string
	index int
}

// String is the path as written.
func (p Path) String() string { return p.text }

// Parse reads a path: $ then any number of .name (letters, digits, _ and
// -, not starting with a digit or -), [N] (a list index, 0 or more) and
// ["name"] or ['name'] (any member name; \ escapes the quote and itself).
// The error says where the path breaks the rule.
func Parse(text string) (Path, error) {
	if len(text) > maxLen {
		return Path{}, fmt.Errorf("is longer than %d bytes", maxLen)
	}
	if !strings.HasPrefix(text, "$") {
		return Path{}, errors.New(`must start with $ (the response): $.a.b[0] or $["a.b"]`)
	}
	p := Path{text: text}
	for i := 1; i < len(text); {
		var s step
		var err error
		switch text[i] {
		case '.':
			s, i, err = dotted(text, i+1)
		case '[':
			s, i, err = bracketed(text, i+1)
		default:
			err = fmt.Errorf("byte %d: expected . or [", i)
		}
		if err != nil {
			return Path{}, err
		}
		p.steps = append(p.steps, s)
	}
	return p, nil
}

func dotted(text string, i int) (step, int, error) {
	start := i
	for i < len(text) && nameByte(text[i], i == start) {
		i++
	}
	if i == start {
		return step{}, 0, fmt.Errorf("byte %d: expected a member name after . (letters, digits, _ and -, not starting with a digit or -; write others as [\"name\"])", start)
	}
	return step{name: text[start:i], index: -1}, i, nil
}

func nameByte(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		return true
	case c >= '0' && c <= '9', c == '-':
		return !first
	}
	return false
}

func bracketed(text string, i int) (step, int, error) {
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		return quoted(text, i)
	}
	start := i
	for i < len(text) && text[i] >= '0' && text[i] <= '9' {
		i++
	}
	if i == start || i >= len(text) || text[i] != ']' {
		return step{}, 0, fmt.Errorf("byte %d: expected an index (0 or more) or a quoted name, then ]", start)
	}
	digits := text[start:i]
	n, err := strconv.Atoi(digits)
	if err != nil || (len(digits) > 1 && digits[0] == '0') {
		return step{}, 0, fmt.Errorf("byte %d: the index must be written in decimal without leading zeros", start)
	}
	return step{index: n}, i + 1, nil
}

func quoted(text string, i int) (step, int, error) {
	q := text[i]
	start := i
	var b strings.Builder
	for i++; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\\' && i+1 < len(text) && (text[i+1] == q || text[i+1] == '\\'):
			i++
			b.WriteByte(text[i])
		case c == '\\':
			return step{}, 0, fmt.Errorf("byte %d: \\ escapes only the quote and itself", i)
		case c == q:
			if i+1 >= len(text) || text[i+1] != ']' {
				return step{}, 0, fmt.Errorf("byte %d: expected ] after the quoted name", i+1)
			}
			return step{name: b.String(), index: -1}, i + 2, nil
		default:
			b.WriteByte(c)
		}
	}
	return step{}, 0, fmt.Errorf("byte %d: the quoted name is not closed", start)
}

// Lookup returns the value the path names in doc, a JSON document as
// encoding/json decodes it into an any (map[string]any, []any, string,
// float64 or json.Number, bool, nil); false when it names nothing.
func (p Path) Lookup(doc any) (any, bool) {
	v := doc
	for _, s := range p.steps {
		if s.index >= 0 {
			list, ok := v.([]any)
			if !ok || s.index >= len(list) {
				return nil, false
			}
			v = list[s.index]
			continue
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[s.name]; !ok {
			return nil, false
		}
	}
	return v, true
}
