package jsonpath

import (
	"errors"
	"fmt"
	"strings"

	rfc9535 "github.com/theory/jsonpath"
)

// maxLen bounds a path: a longer one is no path anyone means.
const maxLen = 512

// Path is a parsed JSON path that names at most one value.
type Path struct {
	text string
	path *rfc9535.Path
}

// String is the path as written.
func (p Path) String() string { return p.text }

// Parse reads a path in RFC 9535's syntax ($.a.b[0], $["a.b"], $['it\'s'],
// $[-1] for the last item of a list) and holds it to the singular queries:
// member names and indexes only, so that it names one value or none. The
// error says where the path breaks the rule.
func Parse(text string) (Path, error) {
	if len(text) > maxLen {
		return Path{}, fmt.Errorf("is longer than %d bytes", maxLen)
	}
	if !strings.HasPrefix(text, "$") {
		return Path{}, errors.New(`must start with $ (the response): $.a.b[0] or $["a.b"]`)
	}
	p, err := rfc9535.Parse(text)
	if err != nil {
		return Path{}, fmt.Errorf("is not a JSON path (RFC 9535): %s", strings.TrimPrefix(err.Error(), "jsonpath: "))
	}
	if p.Query().Singular() == nil {
		return Path{}, errors.New("must name one value: member names and indexes only ($.a.b[0], $[\"a.b\"]), " +
			"no wildcard, slice, filter or descendant (..)")
	}
	return Path{text: text, path: p}, nil
}

// Lookup returns the value the path names in doc, a JSON document as
// encoding/json decodes it into an any (map[string]any, []any, string,
// float64 or json.Number, bool, nil); false when it names nothing.
func (p Path) Lookup(doc any) (any, bool) {
	if p.path == nil {
		return nil, false
	}
	nodes := p.path.Select(doc)
	if len(nodes) != 1 {
		return nil, false
	}
	return nodes[0], true
}
