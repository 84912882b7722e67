package yamltree

import (
	"math"
	"math/big"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// jsonValue reads n as the JSON value it stands for: a mapping is a
// map[string]any, a list an []any, a string a string, a boolean a bool,
// null nil, and a number a float64. That is the form encoding/json gives
// the value back in after a round trip through JSON, so what manent.yml
// says and what a stored copy of it says are the same values: a number
// that a float64 cannot hold exactly (12345678901234567890, 0.1000000000000000001)
// would silently change, and is refused. ok is false after an error.
func (d *decoder) jsonValue(n *yaml.Node, path string) (v any, ok bool) {
	d.budget--
	if d.budget < 0 {
		if d.budget == -1 {
			d.errs.Add("", "document is too complex: it expands to more than %d values", maxVisits)
		}
		return nil, false
	}
	n = resolve(n)
	if n == nil {
		d.errs.Add(path, "alias chain is too long")
		return nil, false
	}
	switch n.Kind {
	case yaml.MappingNode:
		keys, values, ok := d.pairs(n, path)
		if !ok {
			return nil, false
		}
		m := make(map[string]any, len(keys))
		good := true
		for i, k := range keys {
			v, ok := d.jsonValue(values[i], Key(path, k))
			good = good && ok
			m[k] = v
		}
		return m, good
	case yaml.SequenceNode:
		list := make([]any, len(n.Content))
		good := true
		for i, c := range n.Content {
			v, ok := d.jsonValue(c, Index(path, i))
			good = good && ok
			list[i] = v
		}
		return list, good
	case yaml.ScalarNode:
		return d.jsonScalar(n, path)
	}
	d.errs.Add(path, "must be a JSON value")
	return nil, false
}

func (d *decoder) jsonScalar(n *yaml.Node, path string) (any, bool) {
	switch n.ShortTag() {
	case "!!null":
		return nil, true
	case "!!str", "!!timestamp":
		return n.Value, true
	case "!!bool":
		var b bool
		if n.Decode(&b) != nil {
			d.errs.Add(path, "must be true or false")
			return nil, false
		}
		return b, true
	case "!!int", "!!float":
		f, ok := exactNumber(n)
		if !ok {
			d.errs.Add(path, "must be a finite number that a JSON number holds exactly (a 64-bit float): write a larger or more precise one as a string")
			return nil, false
		}
		return f, true
	}
	d.errs.Add(path, "must be a string, a number, true, false or null")
	return nil, false
}

// exactNumber is the float64 of a YAML number when it is exactly the number
// written: integers within ±2^53 and decimals whose shortest float64 form
// is the same rational number (0.1 is; 0.10000000000000000001 is not).
func exactNumber(n *yaml.Node) (float64, bool) {
	if n.ShortTag() == "!!int" {
		var i int64
		if n.Decode(&i) != nil || i > 1<<53 || i < -(1<<53) {
			return 0, false
		}
		return float64(i), true
	}
	var f float64
	if n.Decode(&f) != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	written, ok := new(big.Rat).SetString(n.Value)
	if !ok {
		return 0, false
	}
	stored, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	return f, ok && written.Cmp(stored) == 0
}
