package itsm

import (
	"encoding/json"
	"strconv"
)

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
