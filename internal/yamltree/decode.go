package yamltree

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// maxVisits bounds the work of one decode: aliases let a small document
// expand into an exponential tree, and this budget stops that.
const maxVisits = 1_000_000

// maxAliasChain bounds alias-to-alias hops.
const maxAliasChain = 32

type decoder struct {
	errs   *Errors
	budget int
}

// Decode decodes n into the value v points to. Structs are read through
// their `yaml` tags; a key without a field is an unknown field. An integer
// field tagged `yaml:"name,bytes"` also takes sizes such as 512MiB (see
// ParseSize); time.Duration fields take Go durations (10m); float fields
// take integers and finite decimals; an any field takes a JSON value (see
// jsonValue). Null leaves
// the zero value, so a pointer field tells absent from zero. Any plain
// scalar decodes into a string as written (version: 1.10 stays "1.10");
// booleans and integers must be written as such. Every problem is recorded
// in errs with its path, below path.
func Decode(n *yaml.Node, path string, v any, errs *Errors) {
	d := &decoder{errs: errs, budget: maxVisits}
	d.value(n, path, reflect.ValueOf(v).Elem())
}

func (d *decoder) value(n *yaml.Node, path string, rv reflect.Value) {
	d.budget--
	if d.budget < 0 {
		if d.budget == -1 {
			d.errs.Add("", "document is too complex: it expands to more than %d values", maxVisits)
		}
		return
	}
	n = resolve(n)
	if n == nil {
		d.errs.Add(path, "alias chain is too long")
		return
	}
	if isNull(n) {
		return
	}
	if rv.Type() == durationType {
		d.duration(n, path, rv)
		return
	}
	if rv.Type() == daysType {
		d.days(n, path, rv)
		return
	}
	switch rv.Kind() {
	case reflect.Pointer:
		p := reflect.New(rv.Type().Elem())
		setDefaults(p)
		d.value(n, path, p.Elem())
		if !d.errs.Bad(path) {
			rv.Set(p)
		}
	case reflect.Struct:
		d.structure(n, path, rv)
	case reflect.Map:
		d.mapping(n, path, rv)
	case reflect.Slice:
		d.sequence(n, path, rv)
	case reflect.String:
		d.str(n, path, rv)
	case reflect.Bool:
		d.boolean(n, path, rv)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		d.integer(n, path, rv)
	case reflect.Float32, reflect.Float64:
		d.float(n, path, rv)
	case reflect.Interface:
		if rv.NumMethod() > 0 {
			panic("yamltree: cannot decode into " + rv.Type().String())
		}
		if v, ok := d.jsonValue(n, path); ok && v != nil {
			rv.Set(reflect.ValueOf(v))
		}
	default:
		panic("yamltree: cannot decode into " + rv.Type().String())
	}
}

func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i == maxAliasChain {
			return nil
		}
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// pairs returns the keys and values of a mapping, reporting non-string keys,
// merge keys and duplicates (which yaml.Node keeps silently) and skipping them.
func (d *decoder) pairs(n *yaml.Node, path string) (keys []string, values []*yaml.Node, ok bool) {
	if n.Kind != yaml.MappingNode {
		d.errs.Add(path, "must be a mapping")
		return nil, nil, false
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := resolve(n.Content[i]), n.Content[i+1]
		if kn == nil || kn.Kind != yaml.ScalarNode {
			d.errs.Add(path, "keys must be strings")
			continue
		}
		if kn.ShortTag() == "!!merge" {
			d.errs.Add(path, "merge keys (<<) are not supported")
			continue
		}
		k := kn.Value
		if seen[k] {
			d.errs.Add(Key(path, k), "duplicate key")
			continue
		}
		seen[k] = true
		keys = append(keys, k)
		values = append(values, vn)
	}
	return keys, values, true
}

func (d *decoder) structure(n *yaml.Node, path string, rv reflect.Value) {
	keys, values, ok := d.pairs(n, path)
	if !ok {
		return
	}
	fields := map[string]int{}
	var names []string
	t := rv.Type()
	sizes := map[string]bool{}
	for i := range t.NumField() {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		fields[name] = i
		names = append(names, name)
		sizes[name] = opts == "bytes"
	}
	for i, k := range keys {
		idx, known := fields[k]
		if !known {
			if s := suggest(k, names); s != "" {
				d.errs.Add(Key(path, k), "unknown field (did you mean %s?)", s)
			} else {
				d.errs.Add(Key(path, k), "unknown field")
			}
			continue
		}
		if sizes[k] {
			d.size(values[i], Key(path, k), rv.Field(idx))
			continue
		}
		d.value(values[i], Key(path, k), rv.Field(idx))
	}
}

func (d *decoder) size(n *yaml.Node, path string, rv reflect.Value) {
	n = resolve(n)
	if n == nil || isNull(n) {
		return
	}
	v, err := ParseSize(n.Value)
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!str") || err != nil || rv.OverflowInt(v) {
		d.errs.Add(path, "must be a size such as 1073741824, 512MiB or 1GiB")
		return
	}
	rv.SetInt(v)
}

var sizeUnits = []struct {
	suffix string
	factor int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
}

// ParseSize reads a size in bytes: 1073741824, 512MiB, 1GiB, 100MB.
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	factor := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, factor = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/factor {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return n * factor, nil
}

func (d *decoder) mapping(n *yaml.Node, path string, rv reflect.Value) {
	keys, values, ok := d.pairs(n, path)
	if !ok {
		return
	}
	if rv.IsNil() {
		rv.Set(reflect.MakeMapWithSize(rv.Type(), len(keys)))
	}
	for i, k := range keys {
		p := reflect.New(rv.Type().Elem())
		setDefaults(p)
		elem := p.Elem()
		d.value(values[i], Key(path, k), elem)
		rv.SetMapIndex(reflect.ValueOf(k).Convert(rv.Type().Key()), elem)
	}
}

func (d *decoder) sequence(n *yaml.Node, path string, rv reflect.Value) {
	if n.Kind != yaml.SequenceNode {
		d.errs.Add(path, "must be a list")
		return
	}
	s := reflect.MakeSlice(rv.Type(), len(n.Content), len(n.Content))
	for i, c := range n.Content {
		setDefaults(s.Index(i).Addr())
		d.value(c, Index(path, i), s.Index(i))
	}
	rv.Set(s)
}

// Defaulter is implemented by types whose fields have defaults other than
// the zero value: a new list element, map value or pointer target gets them
// before its keys are decoded, so absent keys keep them.
type Defaulter interface{ SetDefaults() }

func setDefaults(p reflect.Value) {
	if d, ok := p.Interface().(Defaulter); ok {
		d.SetDefaults()
	}
}

var durationType = reflect.TypeFor[time.Duration]()

func (d *decoder) duration(n *yaml.Node, path string, rv reflect.Value) {
	v, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" || err != nil {
		d.errs.Add(path, "must be a duration such as 500ms, 30s, 10m or 1h")
		return
	}
	rv.SetInt(int64(v))
}

// Days is a duration written in days (90d) or as a Go duration (36h): the
// periods counted in days, such as retention, take it; the other durations
// keep Go's syntax alone.
type Days time.Duration

var daysType = reflect.TypeFor[Days]()

func (d *decoder) days(n *yaml.Node, path string, rv reflect.Value) {
	v, err := parseDays(n.Value)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" || err != nil {
		d.errs.Add(path, "must be a duration such as 36h, 7d or 90d")
		return
	}
	rv.SetInt(int64(v))
}

// parseDays reads a Go duration (90m, 2h) or a whole number of days (90d).
func parseDays(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		// The bound keeps the multiplication from overflowing.
		if err != nil || days < 0 || days > 100_000 || n[0] == '+' {
			return 0, fmt.Errorf("invalid number of days %q", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}

// stringTags are the scalars taken as written into a string field.
var stringTags = map[string]bool{
	"!!str": true, "!!int": true, "!!float": true, "!!bool": true, "!!timestamp": true, "!!merge": true,
}

func (d *decoder) str(n *yaml.Node, path string, rv reflect.Value) {
	if n.Kind != yaml.ScalarNode || !stringTags[n.ShortTag()] {
		d.errs.Add(path, "must be a string")
		return
	}
	rv.SetString(n.Value)
}

func (d *decoder) boolean(n *yaml.Node, path string, rv reflect.Value) {
	var b bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
		d.errs.Add(path, "must be true or false")
		return
	}
	rv.SetBool(b)
}

func (d *decoder) integer(n *yaml.Node, path string, rv reflect.Value) {
	var i int64
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil || rv.OverflowInt(i) {
		d.errs.Add(path, "must be an integer")
		return
	}
	rv.SetInt(i)
}

// float takes an integer or a finite decimal: NaN and the infinities,
// which YAML can write (.nan, .inf), are no bound anyone means.
func (d *decoder) float(n *yaml.Node, path string, rv reflect.Value) {
	var f float64
	tag := n.ShortTag()
	if n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") || n.Decode(&f) != nil ||
		math.IsNaN(f) || math.IsInf(f, 0) || rv.OverflowFloat(f) {
		d.errs.Add(path, "must be a number")
		return
	}
	rv.SetFloat(f)
}

// suggest returns the known name a mistyped key most likely meant: the same
// name in another case or separator style (dry_run for dryRun), or the
// nearest within two edits.
func suggest(key string, known []string) string {
	if len(key) > 64 {
		return ""
	}
	best, bestDist := "", 3
	for _, k := range known {
		if normalize(k) == normalize(key) {
			return k
		}
		// Short keys are within two edits of too much to suggest anything.
		if dist := distance(key, k); dist < bestDist && dist <= len(key)-2 {
			best, bestDist = k, dist
		}
	}
	return best
}

func normalize(s string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
