package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// maxDescriptor bounds what is read from a file or stdin: a descriptor is a
// few kilobytes.
const maxDescriptor = 4 << 20

// readDescriptor reads the file named by -f ("-" is stdin).
func (a *app) readDescriptor(name string) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = a.stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, &usageError{err: fmt.Errorf("read descriptor: %w", err)}
		}
		// Read-only: a failed close loses nothing.
		defer func() { _ = f.Close() }()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxDescriptor+1))
	if err != nil {
		return nil, &usageError{err: fmt.Errorf("read descriptor %s: %w", name, err)}
	}
	if len(b) > maxDescriptor {
		return nil, &usageError{err: fmt.Errorf("descriptor %s is larger than %d bytes", name, maxDescriptor)}
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, &usageError{err: fmt.Errorf("descriptor %s is empty", name)}
	}
	return b, nil
}

// These mirror the server's rules so that a bad flag is refused before
// anything is sent; the server checks the edited descriptor again.
var (
	deployIDPattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9._@-]{0,127}$`)
	importNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)
)

// descriptorEdits are what the flags of manent deploy change in the
// descriptor before it is sent.
type descriptorEdits struct {
	dryRun bool
	// after are deploy IDs added to after (--after).
	after []string
	// imports bind import names to deploy IDs (--import NAME=ID).
	imports []importFlag
}

type importFlag struct{ name, id string }

func (e descriptorEdits) empty() bool {
	return !e.dryRun && len(e.after) == 0 && len(e.imports) == 0
}

// flags names the flags behind the edits, for error messages.
func (e descriptorEdits) flags() string {
	var names []string
	if e.dryRun {
		names = append(names, "--dry-run")
	}
	if len(e.after) > 0 {
		names = append(names, "--after")
	}
	if len(e.imports) > 0 {
		names = append(names, "--import")
	}
	return strings.Join(names, ", ")
}

// newDescriptorEdits checks the values of the deploy flags.
func newDescriptorEdits(dryRun bool, after, imports []string) (descriptorEdits, error) {
	e := descriptorEdits{dryRun: dryRun}
	for _, id := range after {
		if !deployIDPattern.MatchString(id) {
			return e, &usageError{err: fmt.Errorf("--after %q: a deploy ID is 1 to 128 characters of a-z, 0-9, '.', '_', '@' and -", id)}
		}
		e.after = append(e.after, id)
	}
	seen := map[string]bool{}
	for _, v := range imports {
		name, id, ok := strings.Cut(v, "=")
		switch {
		case !ok:
			return e, &usageError{err: fmt.Errorf("--import %q: must be NAME=DEPLOYMENT_ID", v)}
		case !importNamePattern.MatchString(name):
			return e, &usageError{err: fmt.Errorf("--import %q: the name must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter", v)}
		case !deployIDPattern.MatchString(id):
			return e, &usageError{err: fmt.Errorf("--import %q: a deploy ID is 1 to 128 characters of a-z, 0-9, '.', '_', '@' and -", v)}
		case seen[name]:
			return e, &usageError{err: fmt.Errorf("--import %s is given twice", name)}
		}
		seen[name] = true
		e.imports = append(e.imports, importFlag{name: name, id: id})
	}
	if dryRun && (len(e.after) > 0 || len(e.imports) > 0) {
		// The server refuses it too; saying so here names the flags.
		return e, &usageError{err: fmt.Errorf("--dry-run cannot be combined with --after or --import: a dry run starts at once")}
	}
	return e, nil
}

// withDryRun sets dryRun: true at the top of the descriptor, keeping the
// rest as written. A document it cannot edit is refused here: sending it
// unchanged could run a real deploy when a dry run was asked for.
func withDryRun(doc []byte) ([]byte, error) {
	return editDescriptor(doc, descriptorEdits{dryRun: true})
}

// editDescriptor applies the edits to the top-level mapping of the
// descriptor, keeping the rest (comments, order) as written. A document it
// cannot edit is refused: sending it unchanged would silently drop a flag.
func editDescriptor(doc []byte, e descriptorEdits) ([]byte, error) {
	if e.empty() {
		return doc, nil
	}
	flags := e.flags()
	refuse := func(format string, args ...any) error {
		return &exitError{code: exitRefused, msg: flags + ": " + fmt.Sprintf(format, args...)}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, refuse("the descriptor is not valid YAML: %v", err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, refuse("the descriptor is not a YAML mapping")
	}
	m := root.Content[0]
	if m.Style&yaml.FlowStyle != 0 {
		// A JSON descriptor: send it back as plain block YAML.
		blockStyle(m)
	}
	if e.dryRun {
		setKey(m, "dryRun", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	}
	after := e.after
	if len(e.imports) > 0 {
		imports := mappingValue(m, "imports")
		if imports == nil {
			imports = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			setKey(m, "imports", imports)
		}
		if imports.Kind != yaml.MappingNode {
			return nil, refuse("imports in the descriptor is not a mapping")
		}
		for _, imp := range e.imports {
			if mappingValue(imports, imp.name) != nil {
				return nil, refuse("the descriptor already declares import %s", imp.name)
			}
			setKey(imports, imp.name, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
				str("deployment"), str(imp.id),
			}})
			// An import reads a deploy this one waits for.
			after = append(after, imp.id)
		}
	}
	if len(after) > 0 {
		list := mappingValue(m, "after")
		if list == nil {
			list = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			setKey(m, "after", list)
		}
		if list.Kind != yaml.SequenceNode {
			return nil, refuse("after in the descriptor is not a list")
		}
		have := map[string]bool{}
		for _, n := range list.Content {
			have[n.Value] = true
		}
		for _, id := range after {
			if !have[id] {
				list.Content = append(list.Content, str(id))
				have[id] = true
			}
		}
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, fmt.Errorf("%s: encode descriptor: %w", flags, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("%s: encode descriptor: %w", flags, err)
	}
	return out.Bytes(), nil
}

func str(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
}

// mappingValue is the value of key in the mapping m, nil if absent.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// setKey replaces the value of key in the mapping m, or appends it.
func setKey(m *yaml.Node, key string, v *yaml.Node) {
	replaced := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			replaced = true
		}
	}
	if !replaced {
		m.Content = append(m.Content, str(key), v)
	}
}

// scheduledAt is the descriptor's schedule.at, zero when it has none or it
// does not parse (the server says why): following a DELAYED deploy shows it.
func scheduledAt(doc []byte) time.Time {
	var d struct {
		Schedule struct {
			At string `yaml:"at"`
		} `yaml:"schedule"`
	}
	if yaml.Unmarshal(doc, &d) != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, d.Schedule.At)
	if err != nil {
		return time.Time{}
	}
	return t
}
