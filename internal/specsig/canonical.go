package specsig

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"manent.dev/manent/deploy"
)

// Canonical is the canonical form of a specification, the bytes its hash
// and its signature cover: the JSON of the deploy.CustomSpec, then every
// object's members sorted by key (byte order), no white space, strings as
// encoding/json writes them without HTML escaping, and every number in
// the shortest form that reads back as the same 64-bit float (1.0 and 1e0
// are 1, and -0 is 0). It is the same before and after a round trip of the plan
// through JSON, DBOS's records or PostgreSQL's jsonb: none of them changes
// a key, a string or the float a number stands for.
func Canonical(spec *deploy.CustomSpec) ([]byte, error) {
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("canonical form of step %s: %w", spec.Name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("canonical form of step %s: %w", spec.Name, err)
	}
	var b bytes.Buffer
	if err := write(&b, v); err != nil {
		return nil, fmt.Errorf("canonical form of step %s: %w", spec.Name, err)
	}
	return b.Bytes(), nil
}

func write(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := write(b, v[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := write(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case string:
		writeString(b, v)
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsInf(f, 0) {
			return fmt.Errorf("number %s is not a 64-bit float", v)
		}
		if f == 0 {
			// PostgreSQL's jsonb keeps no negative zero: -0 is 0.
			f = 0
		}
		// encoding/json writes a float64 as ECMAScript does: the shortest
		// form that reads back as the same float.
		out, err := json.Marshal(f)
		if err != nil {
			return err
		}
		b.Write(out)
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case nil:
		b.WriteString("null")
	default:
		return fmt.Errorf("unexpected %T in the JSON of a specification", v)
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // Encode ends with a newline
}

// Hash is the spec_hash of a specification: the hex SHA-256 of its
// canonical form.
func Hash(spec *deploy.CustomSpec) (string, error) {
	c, err := Canonical(spec)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
}
