package placeholder

import (
	"errors"
	"fmt"
	"strings"
	"text/template/parse"

	"manent.dev/manent/deploy"
)

// Scope is what a template may refer to: the checks of the configuration
// hold every placeholder to it.
type Scope struct {
	Params  map[string]bool            // declared parameter names of the step
	Outputs map[string]map[string]bool // step name -> declared output keys, of the steps before this one
	// AnyOutputs are the standard steps before this one: what they output
	// is their plugin's or manent's, declared nowhere, so any key may be
	// named; one they did not produce fails when the step runs.
	AnyOutputs map[string]bool
	Response   bool // .Response.<field> allowed (poll.url only)
}

// Values are what the placeholders of a run stand for.
type Values struct {
	Application, Environment, Version, Artifact, DeploymentID, SHA256 string
	DryRun                                                            bool
	Params                                                            map[string]string
	Outputs                                                           map[string]map[string]string
	Response                                                          any // the decoded JSON of the first response (poll.url only)
}

// The kinds of errors a rendering returns, for errors.Is: the step fails
// either way, but a missing value tells the author a step did not produce
// what a later one needs, a refused one that a value was hostile or wrong.
var (
	ErrMissing = errors.New("missing value")
	ErrRefused = errors.New("value refused")
)

// valueError is an error of one value, of kind ErrMissing or ErrRefused;
// its message names the placeholder, never the value.
type valueError struct {
	kind error
	msg  string
}

func (e *valueError) Error() string { return e.msg }
func (e *valueError) Unwrap() error { return e.kind }

func missing(format string, args ...any) error {
	return &valueError{kind: ErrMissing, msg: fmt.Sprintf(format, args...)}
}

func refused(format string, args ...any) error {
	return &valueError{kind: ErrRefused, msg: fmt.Sprintf(format, args...)}
}

// PartError is an error in one part of a command or a JSON body. Path says
// which part in the notation of a configuration path ("[2]" for the third
// element of a command, ".tags[0]" for a string of a body), so a caller can
// append it to the path of the key it checked.
type PartError struct {
	Path string
	Err  error
}

func (e *PartError) Error() string {
	if e.Path == "" {
		return e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}
func (e *PartError) Unwrap() error { return e.Err }

// The values a placeholder may name besides .Params, .Outputs and .Response.
const fixedNames = ".Application, .Environment, .Version, .Artifact, .DeploymentID, .SHA256, .DryRun"

func fixedField(name string) bool {
	switch name {
	case "Application", "Environment", "Version", "Artifact", "DeploymentID", "SHA256", "DryRun":
		return true
	}
	return false
}

// tmpl is a parsed template: literal text and placeholders, in order.
type tmpl struct {
	parts []part
}

// part is literal text when ref is nil; pos is where it starts in the
// text written.
type part struct {
	lit string
	ref *ref
	pos int
}

// ref is one placeholder.
type ref struct {
	field string // Application, ..., DryRun, Params, Outputs or Response
	path  []key  // the parameter; the step and the key; the fields of the response
	name  string // the placeholder as written, escaped, for messages
}

// key is one step of a path: a name, or a list index (index .Response "items" 0).
type key struct {
	name    string
	index   int
	isIndex bool
}

func (k key) String() string {
	if k.isIndex {
		return fmt.Sprintf("[%d]", k.index)
	}
	return k.name
}

// The name the parser gives the template, cut from its messages.
const treeName = "placeholder"

// parseTemplate reads text: literal text and placeholders, and nothing else
// a Go template can do.
func parseTemplate(text string) (*tmpl, error) {
	tree := parse.New(treeName)
	// Functions are refused below, by name; comments are kept so they are
	// refused rather than silently dropped.
	tree.Mode = parse.SkipFuncCheck | parse.ParseComments
	set := map[string]*parse.Tree{}
	if _, err := tree.Parse(text, "{{", "}}", set); err != nil {
		return nil, cleanParseError(err)
	}
	for name := range set {
		if name != treeName {
			return nil, errors.New("{{ define }} and {{ block }} are not allowed: only placeholders such as {{ .Version }}")
		}
	}
	t := &tmpl{}
	if tree.Root == nil {
		return t, nil
	}
	for _, n := range tree.Root.Nodes {
		switch n := n.(type) {
		case *parse.TextNode:
			t.parts = append(t.parts, part{lit: string(n.Text), pos: int(n.Position())})
		case *parse.ActionNode:
			r, err := actionRef(n)
			if err != nil {
				return nil, err
			}
			t.parts = append(t.parts, part{ref: r})
		default:
			return nil, fmt.Errorf("%s is not allowed: only placeholders such as {{ .Version }}", nodeKind(n))
		}
	}
	return t, nil
}

func nodeKind(n parse.Node) string {
	switch n.(type) {
	case *parse.IfNode:
		return "{{ if }}"
	case *parse.RangeNode:
		return "{{ range }}"
	case *parse.WithNode:
		return "{{ with }}"
	case *parse.TemplateNode:
		return "{{ template }}"
	case *parse.CommentNode:
		return "a comment"
	}
	return "{{ " + shortText(n.String()) + " }}"
}

// actionRef is the placeholder an action names: a field (.Version,
// .Params.name, .Outputs.step.key, .Response.a.b) or an index of .Params,
// .Outputs or .Response by quoted names.
func actionRef(n *parse.ActionNode) (*ref, error) {
	name := shortText(n.String())
	switch {
	case len(n.Pipe.Decl) > 0:
		return nil, fmt.Errorf("%s: variables are not allowed", name)
	case len(n.Pipe.Cmds) != 1:
		return nil, fmt.Errorf("%s: a pipeline (|) is not allowed", name)
	}
	args := n.Pipe.Cmds[0].Args
	var r *ref
	var err error
	switch a := args[0].(type) {
	case *parse.IdentifierNode:
		if a.Ident != "index" {
			return nil, fmt.Errorf("%s: function %s is not allowed: only placeholders such as {{ .Version }} and {{ index .Outputs \"step\" \"key\" }}", name, shortText(a.Ident))
		}
		r, err = indexRef(name, args[1:])
	case *parse.FieldNode:
		if len(args) != 1 {
			return nil, fmt.Errorf("%s: arguments are not allowed", name)
		}
		r, err = fieldRef(name, a.Ident)
	case *parse.VariableNode:
		return nil, fmt.Errorf("%s: variables are not allowed", name)
	case *parse.DotNode:
		return nil, fmt.Errorf("%s: name a value, such as {{ .Version }}", name)
	case *parse.ChainNode, *parse.PipeNode:
		return nil, fmt.Errorf("%s: only a plain placeholder is allowed, such as {{ .Version }}", name)
	default:
		return nil, fmt.Errorf("%s: a constant is not a placeholder", name)
	}
	if err != nil {
		return nil, err
	}
	r.name = name
	return r, nil
}

func fieldRef(name string, idents []string) (*ref, error) {
	field, rest := idents[0], idents[1:]
	keys := make([]key, len(rest))
	for i, id := range rest {
		keys[i] = key{name: id}
	}
	r := &ref{field: field, path: keys}
	switch {
	case fixedField(field):
		if len(rest) > 0 {
			return nil, fmt.Errorf("%s: .%s has no fields", name, field)
		}
	case field == "Params":
		if len(rest) != 1 {
			return nil, fmt.Errorf("%s: write {{ .Params.<name> }} or {{ index .Params \"<name>\" }}", name)
		}
	case field == "Outputs":
		if len(rest) != 2 {
			return nil, fmt.Errorf("%s: write {{ .Outputs.<step>.<key> }} or {{ index .Outputs \"<step>\" \"<key>\" }}", name)
		}
	case field == "Response":
		if len(rest) == 0 {
			return nil, fmt.Errorf("%s: name a field of the response, such as {{ .Response.id }}", name)
		}
	default:
		return nil, fmt.Errorf("unknown placeholder %s: use %s, .Params.<name>, .Outputs.<step>.<key> or, in poll.url, .Response.<field>", name, fixedNames)
	}
	return r, nil
}

func indexRef(name string, args []parse.Node) (*ref, error) {
	var field string
	if len(args) > 0 {
		if f, ok := args[0].(*parse.FieldNode); ok && len(f.Ident) == 1 {
			field = f.Ident[0]
		}
	}
	var want string
	switch field {
	case "Params":
		want = `{{ index .Params "<name>" }}`
	case "Outputs":
		want = `{{ index .Outputs "<step>" "<key>" }}`
	case "Response":
		want = `{{ index .Response "<field>" ... }}`
	default:
		return nil, fmt.Errorf("%s: index applies to .Params, .Outputs and .Response only", name)
	}
	r := &ref{field: field}
	for _, a := range args[1:] {
		switch a := a.(type) {
		case *parse.StringNode:
			if a.Text == "" {
				return nil, fmt.Errorf("%s: an empty name", name)
			}
			r.path = append(r.path, key{name: a.Text})
		case *parse.NumberNode:
			if field != "Response" || !a.IsInt || a.Int64 < 0 || a.Int64 > 1<<20 {
				return nil, fmt.Errorf("%s: write %s", name, want)
			}
			r.path = append(r.path, key{index: int(a.Int64), isIndex: true})
		default:
			return nil, fmt.Errorf("%s: write %s, with quoted names", name, want)
		}
	}
	switch {
	case field == "Params" && len(r.path) != 1,
		field == "Outputs" && len(r.path) != 2,
		field == "Response" && len(r.path) == 0:
		return nil, fmt.Errorf("%s: write %s", name, want)
	}
	return r, nil
}

// inScope reports the first placeholder of t that s does not declare.
func (t *tmpl) inScope(s Scope) error {
	for _, p := range t.parts {
		if p.ref == nil {
			continue
		}
		if err := p.ref.inScope(s); err != nil {
			return err
		}
	}
	return nil
}

func (r *ref) inScope(s Scope) error {
	switch r.field {
	case "Params":
		if !s.Params[r.path[0].name] {
			return fmt.Errorf("%s: the step declares no parameter %s", r.name, quoteName(r.path[0].name))
		}
	case "Outputs":
		step, k := r.path[0].name, r.path[1].name
		keys, ok := s.Outputs[step]
		switch {
		case s.AnyOutputs[step]:
		case !ok:
			return fmt.Errorf("%s: no step %s with outputs runs before this one", r.name, quoteName(step))
		case !keys[k]:
			return fmt.Errorf("%s: step %s declares no output %s", r.name, quoteName(step), quoteName(k))
		}
	case "Response":
		if !s.Response {
			return fmt.Errorf("%s: .Response is allowed only in poll.url", r.name)
		}
	}
	return nil
}

// render is t filled with v, each value passed through fit, which checks
// it for where it stands and may encode it.
func (t *tmpl) render(v Values, fit func(r *ref, val string) (string, error)) (string, error) {
	var b strings.Builder
	for _, p := range t.parts {
		if p.ref == nil {
			b.WriteString(p.lit)
			continue
		}
		val, err := p.ref.value(v)
		if err != nil {
			return "", err
		}
		if val, err = fit(p.ref, val); err != nil {
			return "", err
		}
		b.WriteString(val)
	}
	return b.String(), nil
}

// maxName is the longest placeholder a message shows before it is cut.
const maxName = 80

// shortText is s escaped for a message of one line and cut to maxName.
func shortText(s string) string { return escapeCut(s, maxName) }

// escapeCut is s escaped (deploy.EscapeText) and cut to about n bytes, on a
// rune boundary.
func escapeCut(s string, n int) string {
	s = deploy.EscapeText(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// quoteName is a name of a parameter, step or key for a message.
func quoteName(s string) string { return `"` + shortText(s) + `"` }

// cleanParseError drops the template name the parser puts first, and the
// line unless the text has several.
func cleanParseError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "template: "+treeName+":")
	if rest, ok := strings.CutPrefix(msg, "1: "); ok {
		msg = rest
	} else if line, rest, ok := strings.Cut(msg, ": "); ok {
		msg = "line " + line + ": " + rest
	}
	return fmt.Errorf("template: %s", escapeCut(msg, 4*maxName))
}
