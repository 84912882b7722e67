package placeholder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxBody is the largest JSON body a request may get, in bytes: the size of
// the largest response manent reads.
const maxBody = 1 << 20

// CheckJSON holds a request body, as YAML decodes it (objects, lists,
// strings, numbers, booleans, null), to the rules of the specification:
// placeholders only inside string values, each one in s, never in an
// object's keys; nothing JSON cannot hold (a key that is not a string, a
// number that is not finite). A *PartError says where ("" for the body
// itself, ".tags[0]").
func CheckJSON(body any, s Scope) error {
	_, err := mapJSON(body, "", func(text string) (string, error) {
		return text, Check(text, s)
	})
	return err
}

// JSON is body filled with v and serialized. A placeholder stands only in
// a string and always yields a string, JSON-escaped by the encoder: no
// value can add a key, end a string or change a type. A value must be
// UTF-8, which JSON strings are. The checks of CheckJSON are made again,
// since the body may come from a stored plan rather than from CheckJSON.
func JSON(body any, v Values) ([]byte, error) {
	filled, err := mapJSON(body, "", func(text string) (string, error) {
		t, err := parseTemplate(text)
		if err != nil {
			return "", err
		}
		return t.render(v, func(r *ref, val string) (string, error) {
			if !utf8.ValidString(val) {
				return "", refused("%s: the value is not UTF-8", r.name)
			}
			return val, nil
		})
	})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// The body goes to an API, not into a web page: <, > and & stay as
	// written.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(filled); err != nil {
		return nil, fmt.Errorf("encode the body: %w", err)
	}
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if len(out) > maxBody {
		return nil, refused("the body is %d bytes long, more than %d", len(out), maxBody)
	}
	return out, nil
}

// mapJSON is a copy of body with every string passed through str, after
// checking the body holds only what JSON can. Members are visited in the
// order of their keys, so the error reported is always the same one.
func mapJSON(body any, path string, str func(text string) (string, error)) (any, error) {
	switch x := body.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, json.Number:
		return body, nil
	case float32:
		return body, checkFloat(float64(x), path)
	case float64:
		return body, checkFloat(x, path)
	case string:
		if !utf8.ValidString(x) {
			return nil, &PartError{Path: path, Err: errors.New("a string must be UTF-8")}
		}
		s, err := str(x)
		if err != nil {
			return nil, &PartError{Path: path, Err: err}
		}
		return s, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			f, err := mapJSON(e, path+"["+strconv.Itoa(i)+"]", str)
			if err != nil {
				return nil, err
			}
			out[i] = f
		}
		return out, nil
	case map[string]any:
		return mapObject(x, path, str)
	case map[any]any:
		obj := make(map[string]any, len(x))
		for k, e := range x {
			ks, ok := k.(string)
			if !ok {
				return nil, &PartError{Path: path, Err: fmt.Errorf("the key %s is not a string, which JSON needs", shortText(fmt.Sprint(k)))}
			}
			obj[ks] = e
		}
		return mapObject(obj, path, str)
	}
	return nil, &PartError{Path: path, Err: fmt.Errorf("a %T is not a JSON value", body)}
}

func mapObject(obj map[string]any, path string, str func(text string) (string, error)) (any, error) {
	out := make(map[string]any, len(obj))
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		at := memberPath(path, k)
		switch {
		case strings.Contains(k, "{{"):
			return nil, &PartError{Path: at, Err: errors.New("a placeholder cannot stand in a key, only in a string value")}
		case !utf8.ValidString(k):
			return nil, &PartError{Path: at, Err: errors.New("a key must be UTF-8")}
		}
		f, err := mapJSON(obj[k], at, str)
		if err != nil {
			return nil, err
		}
		out[k] = f
	}
	return out, nil
}

func checkFloat(f float64, path string) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return &PartError{Path: path, Err: errors.New("JSON has no NaN or infinite numbers")}
	}
	return nil
}

// memberPath is the path of member k of the object at path: .name, or
// ["a.b"] when k is not a plain name.
func memberPath(path, k string) string {
	plain := k != ""
	for i := 0; i < len(k) && plain; i++ {
		c := k[i]
		plain = c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	if plain {
		return path + "." + k
	}
	return path + "[" + strconv.Quote(shortText(k)) + "]"
}
