package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

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

// withDryRun sets dryRun: true at the top of the descriptor, keeping the
// rest as written. A document it cannot edit is refused here: sending it
// unchanged could run a real deploy when a dry run was asked for.
func withDryRun(doc []byte) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, &exitError{code: exitRefused, msg: fmt.Sprintf("--dry-run: the descriptor is not valid YAML: %v", err)}
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, &exitError{code: exitRefused, msg: "--dry-run: the descriptor is not a YAML mapping"}
	}
	m := root.Content[0]
	if m.Style&yaml.FlowStyle != 0 {
		// A JSON descriptor: send it back as plain block YAML.
		blockStyle(m)
	}
	yes := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"}
	replaced := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "dryRun" {
			m.Content[i+1] = yes
			replaced = true
		}
	}
	if !replaced {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "dryRun"}, yes)
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, fmt.Errorf("--dry-run: encode descriptor: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("--dry-run: encode descriptor: %w", err)
	}
	return out.Bytes(), nil
}
