package placeholder

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Check parses one template and holds it to s: literal text and the
// placeholders of the specification only, each parameter and output among
// those s declares. The error names what is wrong, never a value.
func Check(text string, s Scope) error {
	t, err := parseTemplate(text)
	if err != nil {
		return err
	}
	return t.inScope(s)
}

// maxVersion is the longest version the specification accepts.
const maxVersion = 128

// CheckVersion reports whether v is a version a placeholder may hold:
// ^[0-9A-Za-z][0-9A-Za-z.+_-]{0,127}$. The error says where v breaks the
// rule, not what v is.
func CheckVersion(v string) error {
	const rule = "must match ^[0-9A-Za-z][0-9A-Za-z.+_-]{0,127}$"
	switch {
	case v == "":
		return fmt.Errorf("version: %s (it is empty)", rule)
	case len(v) > maxVersion:
		return fmt.Errorf("version: %s (it is %d bytes long)", rule, len(v))
	}
	for i := range len(v) {
		c := v[i]
		alnum := c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !alnum && (i == 0 || !strings.ContainsRune(".+_-", rune(c))) {
			return fmt.Errorf("version: %s (byte %d is not allowed there)", rule, i)
		}
	}
	return nil
}

// value is what r stands for in v, or an error of kind ErrMissing when v
// lacks it, or ErrRefused when the version breaks its rule or a field of
// the response is not a single value.
func (r *ref) value(v Values) (string, error) {
	var val string
	switch r.field {
	case "DryRun":
		return strconv.FormatBool(v.DryRun), nil
	case "Version":
		if err := CheckVersion(v.Version); err != nil {
			return "", refused("%s: %v", r.name, err)
		}
		return v.Version, nil
	case "Application":
		val = v.Application
	case "Environment":
		val = v.Environment
	case "Artifact":
		val = v.Artifact
	case "DeploymentID":
		val = v.DeploymentID
	case "SHA256":
		val = v.SHA256
	case "Params":
		p, ok := v.Params[r.path[0].name]
		if !ok {
			return "", missing("%s: parameter %s has no value", r.name, quoteName(r.path[0].name))
		}
		return p, nil
	case "Outputs":
		step, k := r.path[0].name, r.path[1].name
		o, ok := v.Outputs[step][k]
		if !ok {
			return "", missing("%s: step %s did not produce output %s", r.name, quoteName(step), quoteName(k))
		}
		return o, nil
	case "Response":
		return r.responseValue(v.Response)
	default:
		return "", fmt.Errorf("%s: unknown placeholder", r.name)
	}
	if val == "" {
		return "", missing("%s has no value", r.name)
	}
	return val, nil
}

// responseValue is the field r names in the decoded response: a string, a
// number or a boolean. An absent field and null are missing; an object or
// a list is refused, as it has no one text to stand for.
func (r *ref) responseValue(doc any) (string, error) {
	at := doc
	for i, k := range r.path {
		var ok bool
		switch node := at.(type) {
		case map[string]any:
			if !k.isIndex {
				at, ok = node[k.name]
			}
		case []any:
			if k.isIndex && k.index < len(node) {
				at, ok = node[k.index], true
			}
		}
		if !ok || at == nil {
			return "", missing("%s: the response has no %s", r.name, describePath(r.path[:i+1]))
		}
	}
	switch x := at.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case json.Number:
		return x.String(), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			break
		}
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case map[string]any:
		return "", refused("%s: %s of the response is an object, not a value", r.name, describePath(r.path))
	case []any:
		return "", refused("%s: %s of the response is a list, not a value", r.name, describePath(r.path))
	}
	return "", refused("%s: %s of the response is not a string, a number or a boolean", r.name, describePath(r.path))
}

// describePath is a path of the response for a message: field.list[0].id.
func describePath(path []key) string {
	var b strings.Builder
	for i, k := range path {
		if i > 0 && !k.isIndex {
			b.WriteByte('.')
		}
		b.WriteString(k.String())
	}
	return quoteName(b.String())
}
