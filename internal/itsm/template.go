package itsm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// placeholder matches {{ .Name }}. Templates are plain substitution, not
// text/template: configuration must not be able to run logic or call
// functions, and a value can never change the structure of a body or path.
var placeholder = regexp.MustCompile(`\{\{\s*\.([A-Za-z]+)\s*\}\}`)

// The placeholders each call may use.
var (
	openVars   = names("DeploymentID", "Application", "Environment", "Version", "Requester", "Description")
	statusVars = names("TicketID")
	closeVars  = names("DeploymentID", "TicketID", "Outcome", "OutcomeValue")
)

func names(n ...string) map[string]bool {
	m := make(map[string]bool, len(n))
	for _, s := range n {
		m[s] = true
	}
	return m
}

// checkText reports a placeholder s uses that is not allowed, or a "{{"
// that is not a placeholder (a typo that would otherwise reach the ITSM).
func checkText(s string, allowed map[string]bool) error {
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		if !allowed[m[1]] {
			return fmt.Errorf("unknown placeholder {{ .%s }} (allowed: %s)", m[1], list(allowed))
		}
	}
	if strings.Contains(placeholder.ReplaceAllString(s, ""), "{{") {
		return fmt.Errorf("malformed placeholder: write {{ .Name }}")
	}
	return nil
}

func list(allowed map[string]bool) string {
	out := make([]string, 0, len(allowed))
	for k := range allowed {
		out = append(out, "."+k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// expand replaces the placeholders of s with vars, each passed through esc.
func expand(s string, vars map[string]string, esc func(string) string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		return esc(vars[placeholder.FindStringSubmatch(m)[1]])
	})
}

// expandPath fills a URL path template; values are percent-encoded as one
// path segment, so a ticket id such as "../x?y" cannot move the request.
func expandPath(s string, vars map[string]string) string {
	return expand(s, vars, url.PathEscape)
}

// bodyTemplate is a JSON object whose string values may hold placeholders.
// It is parsed once, and values are substituted into the decoded strings, so
// the JSON encoder escapes them and the structure stays what was configured.
type bodyTemplate struct{ doc map[string]any }

func parseBody(s string, allowed map[string]bool) (*bodyTemplate, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("must be a JSON object: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("must be a single JSON object")
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be a JSON object")
	}
	if err := checkValue(obj, allowed); err != nil {
		return nil, err
	}
	return &bodyTemplate{doc: obj}, nil
}

func checkValue(v any, allowed map[string]bool) error {
	switch x := v.(type) {
	case string:
		return checkText(x, allowed)
	case map[string]any:
		for k, e := range x {
			if strings.Contains(k, "{{") {
				return fmt.Errorf("key %q: placeholders are only allowed in string values", k)
			}
			if err := checkValue(e, allowed); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
	case []any:
		for i, e := range x {
			if err := checkValue(e, allowed); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
	}
	return nil
}

// render returns the JSON body with vars substituted.
func (b *bodyTemplate) render(vars map[string]string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// A description with <, > or & must reach the ITSM as written.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(fill(b.doc, vars)); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func fill(v any, vars map[string]string) any {
	switch x := v.(type) {
	case string:
		return expand(x, vars, func(s string) string { return s })
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = fill(e, vars)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fill(e, vars)
		}
		return out
	}
	return v
}
