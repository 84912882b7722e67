package yamltree

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"manent.dev/manent/deploy"
)

// Parse returns the root node of the single document in data. JSON is read
// with encoding/json rather than as YAML because YAML rejects some valid JSON
// (the \/ escape). An empty document (nothing, comments, null) returns nil
// and no problem: whether that is allowed is the caller's decision.
func Parse(data []byte, maxBytes int) (*yaml.Node, []deploy.FieldError) {
	if len(data) > maxBytes {
		return nil, problem("document is larger than %d bytes", maxBytes)
	}
	if looksLikeJSON(data) {
		return parseJSON(data)
	}
	return parseYAML(data)
}

func problem(format string, args ...any) []deploy.FieldError {
	return []deploy.FieldError{{Message: fmt.Sprintf(format, args...)}}
}

func looksLikeJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(data)
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func parseYAML(data []byte) (root *yaml.Node, errs []deploy.FieldError) {
	// The parser has panicked on malformed input in past releases; a request
	// must never take the server down with it.
	defer func() {
		if r := recover(); r != nil {
			root, errs = nil, problem("syntax error: the document cannot be parsed")
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, []deploy.FieldError{syntaxError(err)}
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, problem("only one document is allowed (found a second one after ---)")
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return nil, nil
	}
	return doc.Content[0], nil
}

func syntaxError(err error) deploy.FieldError {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return deploy.FieldError{Message: "syntax error at line " + m[1] + ": " + m[2]}
	}
	return deploy.FieldError{Message: "syntax error: " + strings.TrimPrefix(msg, "yaml: ")}
}

// parseJSON builds the node tree from JSON tokens, keeping duplicate keys so
// the decoder reports them as it does for YAML.
func parseJSON(data []byte) (*yaml.Node, []deploy.FieldError) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := jsonValue(dec, 0)
	if err != nil {
		return nil, problem("syntax error: %v", err)
	}
	if isNull(n) {
		return nil, nil
	}
	return n, nil
}

// maxJSONDepth matches what a descriptor or configuration can use many times
// over; deeper nesting is refused instead of growing the stack.
const maxJSONDepth = 64

func jsonValue(dec *json.Decoder, depth int) (*yaml.Node, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return jsonObject(dec, depth)
		}
		return jsonArray(dec, depth)
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t, Style: yaml.DoubleQuotedStyle}, nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(t.String(), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: t.String()}, nil
	case bool:
		v := "false"
		if t {
			v = "true"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v}, nil
	default:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
}

func jsonObject(dec *json.Decoder, depth int) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		v, err := jsonValue(dec, depth+1)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
	}
	_, err := dec.Token()
	return n, err
}

func jsonArray(dec *json.Decoder, depth int) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for dec.More() {
		v, err := jsonValue(dec, depth+1)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, v)
	}
	_, err := dec.Token()
	return n, err
}
