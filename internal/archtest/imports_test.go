package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// thirdParty maps the short names that doc.go sentences give to third-party
// code to the import path prefixes they stand for (keys in lower case, looked
// up without regard to case). A doc may also write a full import path of a
// module that go.mod requires. A name found nowhere fails the test, so this
// table stays in step with the docs; TestThirdPartyTableFollowsGoMod keeps it
// in step with go.mod.
var thirdParty = map[string][]string{
	"bun":               {"github.com/uptrace/bun"},
	"casbin":            {"github.com/casbin/casbin/v2"},
	"cobra":             {"github.com/spf13/cobra"},
	"cron":              {"github.com/robfig/cron/v3"},
	"robfig/cron":       {"github.com/robfig/cron/v3"},
	"dbos":              {"github.com/dbos-inc/dbos-transact-golang"},
	"genqlient":         {"github.com/Khan/genqlient"},
	"go-jose":           {"github.com/go-jose/go-jose/v4"},
	"go-oidc":           {"github.com/coreos/go-oidc/v3"},
	"gorilla/websocket": {"github.com/gorilla/websocket"},
	"gqlgen":            {"github.com/99designs/gqlgen"},
	"gqlparser":         {"github.com/vektah/gqlparser/v2"},
	"opa":               {"github.com/open-policy-agent/opa"},
	"pgx":               {"github.com/jackc/pgx/v5"},
	"prometheus":        {"github.com/prometheus/client_golang"},
	"theory/jsonpath":   {"github.com/theory/jsonpath"},
	"x/oauth2":          {"golang.org/x/oauth2"},
	"x/term":            {"golang.org/x/term"},
	"yaml":              {"go.yaml.in/yaml/v3"},
	"zitadel/oidc":      {"github.com/zitadel/oidc/v3"},
}

// The names of a rule that are phrases rather than packages.
const (
	stdName    = "the standard library"
	moduleName = "every package of the module"
)

// ruleText is an import sentence taken apart, its names as the doc writes them.
type ruleText struct {
	sentence string
	allow    []string
	deny     []string // the "never" lists and the "except" of "every package of manent"
	// importedBy, when set by "only A and B import it" or "nothing imports
	// it", lists who may import the package outside tests ("tests" is
	// dropped: test imports are not checked).
	importedBy *[]string
}

var (
	errNoDocGo    = errors.New("no doc.go")
	errNoSentence = errors.New(`doc.go has no import sentence ("It imports ...", "It may import ...")`)

	ruleStart     = regexp.MustCompile(`^(?:It|Its [a-z]+(?: [a-z]+)*) (?:may import|imports) `)
	everyPkg      = regexp.MustCompile(`every package of (?:manent|the module)(?: except (.*))?`)
	onlyImporters = regexp.MustCompile(`^only (.+) imports? it$`)
	listSep       = regexp.MustCompile(`\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+`)
	placeholder   = "\x00every"
)

// parseRule finds the one import sentence of a package comment and takes it
// apart. The sentence starts with "It imports", "It may import" or "Its
// <things> may import", may wrap over lines, and ends with a period. In it:
//   - the first clause lists what is allowed; "only" before the list is a
//     word, not a name; "every package of manent" (or "of the module") allows
//     the module, and an "except A and B" after it, up to the end of its
//     clause, forbids A and B;
//   - a clause "never A, B or C", after ";" or ", ", forbids its names even if
//     another name allows them;
//   - the clauses "only A and B import it" and "nothing imports it" are
//     held against the importers of the package ("only tests import it":
//     no package imports it outside its tests); other clauses are prose;
//   - ": " ends a list (what follows is prose), and a parenthesis is a remark,
//     except one that starts with "never", which is a never clause;
//   - items are separated by ",", "and", "or"; "It imports nothing" allows
//     no import at all.
func parseRule(comment string) (ruleText, error) {
	text := strings.Join(strings.Fields(comment), " ")
	var found []string
	for _, s := range sentences(text) {
		if ruleStart.MatchString(s) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return ruleText{}, errNoSentence
	case 1:
	default:
		return ruleText{}, fmt.Errorf("doc.go has %d import sentences (%q); write one", len(found), found)
	}
	rt := ruleText{sentence: found[0]}
	body := strings.TrimSuffix(found[0][len(ruleStart.FindString(found[0])):], ".")
	flat, remarks, err := cutParentheses(body)
	if err != nil {
		return ruleText{}, fmt.Errorf("%w in %q", err, rt.sentence)
	}
	clauses := strings.Split(strings.ReplaceAll(flat, ", never ", "; never "), ";")
	for _, r := range remarks {
		if strings.HasPrefix(r, "never ") {
			clauses = append(clauses, r)
		}
	}
	allow, except, err := parseList(clauses[0])
	if err != nil {
		return ruleText{}, fmt.Errorf("%w in %q", err, rt.sentence)
	}
	rt.allow, rt.deny = allow, except
	for _, c := range clauses[1:] {
		c, _, _ = strings.Cut(c, ": ")
		c = strings.TrimSpace(c)
		switch {
		case strings.HasPrefix(c, "never "):
			names, except, err := parseList(strings.TrimPrefix(c, "never "))
			if err != nil {
				return ruleText{}, fmt.Errorf("%w in %q", err, rt.sentence)
			}
			rt.deny = append(append(rt.deny, names...), except...)
		case c == "nothing imports it":
			rt.importedBy = &[]string{}
		case onlyImporters.MatchString(c):
			names, err := splitItems(onlyImporters.FindStringSubmatch(c)[1])
			if err != nil {
				return ruleText{}, fmt.Errorf("%w in %q", err, rt.sentence)
			}
			names = slices.DeleteFunc(names, func(n string) bool { return n == "tests" })
			rt.importedBy = &names
		}
	}
	return rt, nil
}

// sentences splits text at every period that is followed by a space or ends
// the text, outside parentheses (so "go.yaml.in/yaml/v3" stays whole).
func sentences(text string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '(':
			depth++
		case ')':
			depth = max(depth-1, 0)
		case '.':
			if depth == 0 && (i+1 == len(text) || text[i+1] == ' ') {
				out = append(out, strings.TrimSpace(text[start:i+1]))
				start = i + 1
			}
		}
	}
	if rest := strings.TrimSpace(text[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// cutParentheses returns s without its parentheses, and what they held.
func cutParentheses(s string) (string, []string, error) {
	var b strings.Builder
	var remarks []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			if depth == 0 {
				start = i + 1
			}
			depth++
		case r == ')':
			depth--
			if depth < 0 {
				return "", nil, errors.New("unbalanced parenthesis")
			}
			if depth == 0 {
				remarks = append(remarks, strings.TrimSpace(s[start:i]))
			}
		case depth == 0:
			b.WriteRune(r)
		}
	}
	if depth != 0 {
		return "", nil, errors.New("unbalanced parenthesis")
	}
	return b.String(), remarks, nil
}

// parseList reads "A, B and C" into names; the "except" names of "every
// package of manent except X and Y" come back apart.
func parseList(list string) (names, except []string, err error) {
	list, _, _ = strings.Cut(list, ": ")
	list = strings.TrimPrefix(strings.TrimSpace(list), "only ")
	if list == "nothing" {
		return nil, nil, nil
	}
	if m := everyPkg.FindStringSubmatchIndex(list); m != nil {
		if m[2] >= 0 {
			if except, err = splitItems(list[m[2]:m[3]]); err != nil {
				return nil, nil, err
			}
		}
		list = list[:m[0]] + placeholder + list[m[1]:]
	}
	items, err := splitItems(list)
	if err != nil {
		return nil, nil, err
	}
	for _, it := range items {
		if it == placeholder {
			it = moduleName
		}
		names = append(names, it)
	}
	return names, except, nil
}

func splitItems(list string) ([]string, error) {
	var out []string
	for _, it := range listSep.Split(strings.TrimSpace(list), -1) {
		it = strings.TrimSpace(it)
		if it == "" {
			return nil, fmt.Errorf("empty name in the list %q", list)
		}
		out = append(out, it)
	}
	return out, nil
}

// A matcher says whether an import path is one a name of a rule stands for.
type matcher struct {
	name     string // as the doc writes it
	std      bool
	exact    []string
	prefixes []string // matched per path element
}

func (m matcher) matches(path string) bool {
	if m.std && isStd(path) {
		return true
	}
	if slices.Contains(m.exact, path) {
		return true
	}
	return slices.ContainsFunc(m.prefixes, func(p string) bool { return hasPathPrefix(path, p) })
}

func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func hasPathPrefix(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// importRule is a ruleText whose names are resolved to import paths.
type importRule struct {
	ruleText
	allow, deny, importers []matcher
}

type goPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Error      *struct{ Err string }
}

type moduleInfo struct {
	path     string
	requires []string
	pkgs     []goPackage
	std      map[string]bool
}

var loadModule = sync.OnceValues(func() (*moduleInfo, error) {
	out, err := goCmd("", "env", "GOMOD")
	if err != nil {
		return nil, err
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return nil, errors.New("not inside a Go module")
	}
	dir := filepath.Dir(gomod)
	if out, err = goCmd(dir, "mod", "edit", "-json"); err != nil {
		return nil, err
	}
	var mod struct {
		Module  struct{ Path string }
		Require []struct{ Path string }
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		return nil, fmt.Errorf("read go.mod: %w", err)
	}
	m := &moduleInfo{path: mod.Module.Path, std: map[string]bool{}}
	for _, r := range mod.Require {
		m.requires = append(m.requires, r.Path)
	}
	if out, err = goCmd(dir, "list", "-e", "-json=ImportPath,Dir,GoFiles,Imports,Error", "./..."); err != nil {
		return nil, err
	}
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p goPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read go list: %w", err)
		}
		m.pkgs = append(m.pkgs, p)
	}
	if out, err = goCmd(dir, "list", "std"); err != nil {
		return nil, err
	}
	for _, p := range strings.Fields(string(out)) {
		m.std[p] = true
	}
	return m, nil
})

func goCmd(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out, nil
}

func module(t *testing.T) *moduleInfo {
	t.Helper()
	m, err := loadModule()
	if err != nil {
		t.Fatalf("load the module: %v", err)
	}
	return m
}

// rel is a package's name relative to the module, as the docs write it.
func (m *moduleInfo) rel(path string) string {
	return strings.TrimPrefix(path, m.path+"/")
}

func (m *moduleInfo) hasPackage(path string) bool {
	return slices.ContainsFunc(m.pkgs, func(p goPackage) bool { return p.ImportPath == path })
}

func (m *moduleInfo) hasPackageUnder(dir string) bool {
	return slices.ContainsFunc(m.pkgs, func(p goPackage) bool { return hasPathPrefix(p.ImportPath, dir) })
}

func (m *moduleInfo) required(path string) bool {
	return slices.ContainsFunc(append([]string{m.path}, m.requires...), func(r string) bool {
		return hasPathPrefix(path, r) || hasPathPrefix(r, path)
	})
}

// resolve turns a name of a doc sentence into the import paths it stands for:
// a package of the module written relative to it (exactly that package), a
// directory of the module without a package of its own, or "dir/*" (every
// package under it), a name of the thirdParty table, a full import path of a
// module that go.mod requires, or a package of the standard library.
func (m *moduleInfo) resolve(name string) (matcher, error) {
	mt := matcher{name: name}
	full := m.path + "/" + name
	dir, isDir := strings.CutSuffix(name, "/*")
	switch {
	case name == stdName:
		mt.std = true
	case name == moduleName:
		mt.prefixes = []string{m.path}
	case isDir && m.hasPackageUnder(m.path+"/"+dir):
		mt.prefixes = []string{m.path + "/" + dir}
	case m.hasPackage(full):
		mt.exact = []string{full}
	case m.hasPackageUnder(full):
		mt.prefixes = []string{full}
	case thirdParty[strings.ToLower(name)] != nil:
		mt.prefixes = thirdParty[strings.ToLower(name)]
	case !isStd(name) && m.required(name):
		mt.prefixes = []string{name}
	case !isStd(name):
		return mt, fmt.Errorf("%q is a full import path that go.mod does not require", name)
	case m.std[name]:
		mt.exact = []string{name}
	default:
		return mt, fmt.Errorf("unknown name %q: not a package or directory of %s (write those relative to the module), "+
			"not in the thirdParty table of internal/archtest/imports_test.go, and not a standard library package", name, m.path)
	}
	return mt, nil
}

func (m *moduleInfo) compile(rt ruleText) (importRule, error) {
	r := importRule{ruleText: rt}
	var errs []error
	for _, names := range []struct {
		in  []string
		out *[]matcher
	}{{rt.allow, &r.allow}, {rt.deny, &r.deny}, {deref(rt.importedBy), &r.importers}} {
		for _, n := range names.in {
			mt, err := m.resolve(n)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			*names.out = append(*names.out, mt)
		}
	}
	return r, errors.Join(errs...)
}

func deref(names *[]string) []string {
	if names == nil {
		return nil
	}
	return *names
}

// docComment reads the package comment of a package's doc.go.
func docComment(p goPackage) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, "doc.go"), nil, parser.PackageClauseOnly|parser.ParseComments)
	if errors.Is(err, fs.ErrNotExist) {
		return "", errNoDocGo
	}
	if err != nil {
		return "", err
	}
	if f.Doc == nil {
		return "", errors.New("doc.go has no package comment")
	}
	return f.Doc.Text(), nil
}

// commentElsewhere names the file that holds the package comment instead of doc.go.
func commentElsewhere(p goPackage) string {
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err == nil && f.Doc != nil {
			return name
		}
	}
	return ""
}

type packageRules struct {
	rules    map[string]importRule // by import path
	problems []string              // one line per package whose rule cannot be read
}

var loadRules = sync.OnceValues(func() (*packageRules, error) {
	m, err := loadModule()
	if err != nil {
		return nil, err
	}
	pr := &packageRules{rules: map[string]importRule{}}
	for _, p := range m.pkgs {
		name := m.rel(p.ImportPath)
		comment, err := docComment(p)
		if err == nil {
			var rt ruleText
			if rt, err = parseRule(comment); err == nil {
				var r importRule
				if r, err = m.compile(rt); err == nil {
					pr.rules[p.ImportPath] = r
					continue
				}
			}
		}
		if errors.Is(err, errNoDocGo) {
			if f := commentElsewhere(p); f != "" {
				err = fmt.Errorf("%w (its package comment is in %s: move it to doc.go)", err, f)
			}
		}
		pr.problems = append(pr.problems, fmt.Sprintf("%s: %v", name, err))
	}
	return pr, nil
})

func rules(t *testing.T) *packageRules {
	t.Helper()
	pr, err := loadRules()
	if err != nil {
		t.Fatalf("load the rules: %v", err)
	}
	return pr
}

// TestEveryPackageStatesItsImports wants a doc.go in every package with one
// import sentence whose names are all known.
func TestEveryPackageStatesItsImports(t *testing.T) {
	if pr := rules(t); len(pr.problems) > 0 {
		t.Errorf("%d packages do not state their imports in doc.go:\n\t%s", len(pr.problems), strings.Join(pr.problems, "\n\t"))
	}
}

// TestImportsFollowDocRules holds each package's non-test imports to the
// import sentence of its doc.go.
func TestImportsFollowDocRules(t *testing.T) {
	m, pr := module(t), rules(t)
	for _, p := range m.pkgs {
		r, ok := pr.rules[p.ImportPath]
		if !ok {
			continue // reported by TestEveryPackageStatesItsImports
		}
		name := m.rel(p.ImportPath)
		t.Run(name, func(t *testing.T) {
			if p.Error != nil {
				t.Logf("%s: go list: %s", name, p.Error.Err)
			}
			for _, v := range r.violations(p.Imports) {
				t.Errorf("%s imports %s: %q", name, v, r.sentence)
			}
			for _, mt := range r.allow {
				if mt.std || mt.name == moduleName || slices.ContainsFunc(p.Imports, mt.matches) {
					continue
				}
				t.Logf("%s: doc.go allows %s, which the package does not import (fine for \"may import\", stale for \"imports\")", name, mt.name)
			}
		})
	}
}

// violations says which of imports the rule refuses, and why; a name of a
// never or except list refuses an import that another name allows.
func (r importRule) violations(imports []string) []string {
	var out []string
	for _, imp := range imports {
		if i := slices.IndexFunc(r.deny, func(mt matcher) bool { return mt.matches(imp) }); i >= 0 {
			out = append(out, fmt.Sprintf("%s, which its doc.go forbids (%s)", imp, r.deny[i].name))
		} else if !anyMatch(r.allow, imp) {
			out = append(out, fmt.Sprintf("%s, which its doc.go does not allow", imp))
		}
	}
	return out
}

func TestViolations(t *testing.T) {
	m := module(t)
	tests := []struct {
		comment string
		imports []string
		want    int
	}{
		{"It imports deploy and the standard library.", []string{"fmt", m.path + "/deploy"}, 0},
		{"It imports deploy and the standard library.", []string{m.path + "/config", "github.com/jackc/pgx/v5"}, 2},
		{"It may import internal/* and the standard library, never internal/postgres.", []string{m.path + "/internal/dberr", m.path + "/internal/postgres"}, 1},
		{"It may import the standard library and every package of manent except cmd and e2e.", []string{"os", m.path + "/engine", m.path + "/cmd/manent", m.path + "/e2e"}, 2},
		{"It may import DBOS and pgx.", []string{"github.com/dbos-inc/dbos-transact-golang/dbos", "github.com/jackc/pgx/v5/pgconn", "fmt"}, 1},
	}
	for _, tt := range tests {
		rt, err := parseRule(tt.comment)
		if err != nil {
			t.Fatalf("parseRule(%q): %v", tt.comment, err)
		}
		r, err := m.compile(rt)
		if err != nil {
			t.Fatalf("compile(%q): %v", tt.comment, err)
		}
		if got := r.violations(tt.imports); len(got) != tt.want {
			t.Errorf("%q on %v: violations %q, want %d of them", tt.comment, tt.imports, got, tt.want)
		}
	}
}

// TestWhoImportsAPackage holds the importers of a package to its "only A
// import it" or "nothing imports it".
func TestWhoImportsAPackage(t *testing.T) {
	m, pr := module(t), rules(t)
	for _, p := range m.pkgs {
		for _, imp := range p.Imports {
			r, ok := pr.rules[imp]
			if ok && r.importedBy != nil && !anyMatch(r.importers, p.ImportPath) {
				t.Errorf("%s imports %s outside its tests, which the doc.go of %s does not allow: %q",
					m.rel(p.ImportPath), m.rel(imp), m.rel(imp), r.sentence)
			}
		}
	}
}

// designRules are the dependency direction of DESIGN.md §2, checked on their
// own so that a doc.go cannot bless a break of it. Patterns are relative to
// the module, "x/..." is x and every package under it, "..." is every
// package; deny may also name a thirdParty entry.
var designRules = []struct {
	rule     string
	from     []string
	except   []string // packages of from the rule does not hold
	deny     []string
	allowed  []string // imports deny names that the rule lets through
	stdOnly  bool     // nothing but the standard library
	onlyOurs []string // when set, the only packages of the module it may import
}{
	{rule: "nothing but cmd imports server", from: []string{"..."}, except: []string{"cmd/..."}, deny: []string{"server/..."}},
	{rule: "nothing imports cmd or e2e", from: []string{"..."}, deny: []string{"cmd/...", "e2e/..."}},
	{rule: "deploy imports only the standard library", from: []string{"deploy/..."}, stdOnly: true},
	{rule: "engine never imports service: they talk through ports", from: []string{"engine/..."}, deny: []string{"service/..."}},
	{
		rule: "service never imports engine but its pure planner: they talk through ports",
		from: []string{"service/..."}, deny: []string{"engine/..."}, allowed: []string{"engine/rollout"},
	},
	{
		rule: "engine/rollout is pure: it reaches the domain through deploy alone, with no I/O",
		from: []string{"engine/rollout"}, onlyOurs: []string{"deploy"},
	},
	{rule: "engine/steps never imports DBOS: a kind acts, the engine records", from: []string{"engine/steps/..."}, deny: []string{"DBOS"}},
	{
		rule: "the domain packages never import the layers above them",
		from: []string{"chains/...", "config/...", "descriptor/...", "governance/..."},
		deny: []string{"server/...", "graph/...", "live/...", "service/...", "engine/...", "client/...", "cmd/..."},
	},
	{rule: "client reaches the domain through deploy alone", from: []string{"client/..."}, onlyOurs: []string{"deploy", "client/..."}},
}

func (m *moduleInfo) pattern(s string) matcher {
	if ps := thirdParty[strings.ToLower(s)]; ps != nil {
		return matcher{name: s, prefixes: ps}
	}
	if s == "..." {
		return matcher{name: s, prefixes: []string{m.path}}
	}
	if dir, ok := strings.CutSuffix(s, "/..."); ok {
		return matcher{name: s, prefixes: []string{m.path + "/" + dir}}
	}
	return matcher{name: s, exact: []string{m.path + "/" + s}}
}

func (m *moduleInfo) patterns(ss []string) []matcher {
	var out []matcher
	for _, s := range ss {
		out = append(out, m.pattern(s))
	}
	return out
}

func anyMatch(ms []matcher, path string) bool {
	return slices.ContainsFunc(ms, func(mt matcher) bool { return mt.matches(path) })
}

func TestDesignDependencyDirection(t *testing.T) {
	m := module(t)
	for _, dr := range designRules {
		t.Run(dr.rule, func(t *testing.T) {
			from, except, deny, ours := m.patterns(dr.from), m.patterns(dr.except), m.patterns(dr.deny), m.patterns(dr.onlyOurs)
			allowed := m.patterns(dr.allowed)
			for _, p := range m.pkgs {
				if !anyMatch(from, p.ImportPath) || anyMatch(except, p.ImportPath) {
					continue
				}
				for _, imp := range p.Imports {
					bad := anyMatch(deny, imp) && !anyMatch(allowed, imp) ||
						dr.stdOnly && !isStd(imp) ||
						len(ours) > 0 && hasPathPrefix(imp, m.path) && !anyMatch(ours, imp)
					if bad {
						t.Errorf("%s imports %s, against the design's rule %q", m.rel(p.ImportPath), imp, dr.rule)
					}
				}
			}
		})
	}
}

// TestThirdPartyTableFollowsGoMod keeps the table to modules go.mod requires.
func TestThirdPartyTableFollowsGoMod(t *testing.T) {
	m := module(t)
	for name, prefixes := range thirdParty {
		if name != strings.ToLower(name) {
			t.Errorf("thirdParty key %q: write keys in lower case", name)
		}
		for _, p := range prefixes {
			if !m.required(p) {
				t.Errorf("thirdParty[%q] = %s, which no requirement of go.mod provides", name, p)
			}
		}
	}
}

func TestParseRule(t *testing.T) {
	tests := []struct {
		name    string
		comment string
		want    ruleText
		wantErr string
	}{
		{
			name:    "plain",
			comment: "Package chains holds exports.\n\nIt imports deploy and the standard library.\n",
			want:    ruleText{allow: []string{"deploy", stdName}},
		},
		{
			name:    "only, wrapped",
			comment: "Package x does y.\n\nIt imports only\nthe standard library and gqlgen.\n",
			want:    ruleText{allow: []string{stdName, "gqlgen"}},
		},
		{
			name: "parenthesis and never after a semicolon, prose after a colon",
			comment: "Package steps is the registry.\n\nIt may import deploy, config, engine/plugins/local (the archive check),\n" +
				"engine/secrets, internal/safehttp and the standard library; never DBOS:\na kind acts, the engine records.\n",
			want: ruleText{allow: []string{"deploy", "config", "engine/plugins/local", "engine/secrets", "internal/safehttp", stdName}, deny: []string{"DBOS"}},
		},
		{
			name:    "never after a comma",
			comment: "It may import A, B and the standard library, never X, Y or Z.",
			want:    ruleText{allow: []string{"A", "B", stdName}, deny: []string{"X", "Y", "Z"}},
		},
		{
			name:    "never in a parenthesis",
			comment: "It may import gorilla/websocket and the standard library (never client: its tests use this one).",
			want:    ruleText{allow: []string{"gorilla/websocket", stdName}, deny: []string{"client"}},
		},
		{
			name:    "every package except",
			comment: "Package server is the root. It holds no SQL.\n\nIt may import every package of manent except cmd and e2e; nothing imports it.",
			want:    ruleText{allow: []string{moduleName}, deny: []string{"cmd", "e2e"}, importedBy: &[]string{}},
		},
		{
			name:    "every package among others",
			comment: "Its benchmarks may import every package of the module, DBOS and the standard library.",
			want:    ruleText{allow: []string{moduleName, "DBOS", stdName}},
		},
		{
			name:    "only tests",
			comment: "It imports deploy, the standard library and testing; only tests import it.",
			want:    ruleText{allow: []string{"deploy", stdName, "testing"}, importedBy: &[]string{}},
		},
		{
			name:    "only some importers, every package last",
			comment: "It may import the standard library, gqlgen and every package of manent except cmd and e2e; only cmd/manent-server imports it.",
			want:    ruleText{allow: []string{stdName, "gqlgen", moduleName}, deny: []string{"cmd", "e2e"}, importedBy: &[]string{"cmd/manent-server"}},
		},
		{
			name:    "dotted names",
			comment: "It imports deploy, go.yaml.in/yaml/v3, github.com/robfig/cron/v3 and the standard library.",
			want:    ruleText{allow: []string{"deploy", "go.yaml.in/yaml/v3", "github.com/robfig/cron/v3", stdName}},
		},
		{name: "nothing", comment: "It imports nothing.", want: ruleText{}},
		{name: "no sentence", comment: "Package x does y.", wantErr: errNoSentence.Error()},
		{name: "two sentences", comment: "It imports deploy. It may import config.", wantErr: "2 import sentences"},
		{name: "unbalanced", comment: "It imports deploy (the domain and config.", wantErr: "unbalanced parenthesis"},
		{name: "empty name", comment: "It imports deploy,, config.", wantErr: "empty name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseRule(tt.comment)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseRule(%q) error = %v, want one containing %q", tt.comment, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseRule(%q): %v", tt.comment, err)
			}
			got.sentence = ""
			if !slices.Equal(got.allow, tt.want.allow) || !slices.Equal(got.deny, tt.want.deny) ||
				(got.importedBy == nil) != (tt.want.importedBy == nil) || !slices.Equal(deref(got.importedBy), deref(tt.want.importedBy)) {
				t.Errorf("parseRule(%q) = %+v, want %+v", tt.comment, got, tt.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	m := module(t)
	tests := []struct {
		name    string
		in, out string // an import path the name must match, one it must not
		wantErr string
	}{
		{name: "engine", in: m.path + "/engine", out: m.path + "/engine/steps"},
		{name: "engine/plugins", in: m.path + "/engine/plugins/local"},
		{name: "internal/*", in: m.path + "/internal/postgres", out: m.path + "/engine"},
		{name: "DBOS", in: "github.com/dbos-inc/dbos-transact-golang/dbos", out: "github.com/jackc/pgx/v5"},
		{name: "gqlparser", in: "github.com/vektah/gqlparser/v2/ast"},
		{name: "github.com/open-policy-agent/opa/v1", in: "github.com/open-policy-agent/opa/v1/rego"},
		{name: stdName, in: "net/http", out: m.path + "/deploy"},
		{name: "testing", in: "testing", out: "testing/fstest"},
		{name: "leftpad", wantErr: `unknown name "leftpad"`},
		{name: "github.com/left/pad", wantErr: "go.mod does not require"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt, err := m.resolve(tt.name)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("resolve(%q) error = %v, want one containing %q", tt.name, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("resolve(%q): %v", tt.name, err)
			}
			if tt.in != "" && !mt.matches(tt.in) {
				t.Errorf("resolve(%q) does not match %s", tt.name, tt.in)
			}
			if tt.out != "" && mt.matches(tt.out) {
				t.Errorf("resolve(%q) matches %s", tt.name, tt.out)
			}
		})
	}
}
