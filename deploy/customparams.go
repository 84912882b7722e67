package deploy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Custom reports whether the planned step is a custom one: it carries a
// specification, or its kind is a custom step's. The worker checks the
// specification of every such step before it runs it, so a stored plan
// cannot reach the kinds of custom steps by another name or type.
func (p PlannedStep) Custom() bool {
	k := p.Kind()
	return p.Spec != nil || k == StepTypeHTTP || k == StepTypeCommand
}

// CompilePattern compiles the pattern of a declared parameter or output:
// the whole value must match it, so it is anchored at both ends whatever
// it says ("[a-z]+" never matches "x; rm -rf /"). Configuration and
// execution both compile through it, so a value the submission accepted is
// one the step accepts.
func CompilePattern(pattern string) (*regexp.Regexp, error) {
	// Compiled alone first: a pattern with unbalanced groups such as
	// a)|(.* would otherwise escape the anchors once wrapped, and match
	// any value.
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, err
	}
	return regexp.Compile(`^(?:` + pattern + `)$`)
}

// matches reports whether v matches pattern as CompilePattern reads it; a
// pattern that does not compile matches nothing.
func matches(pattern, v string) bool {
	re, err := CompilePattern(pattern)
	return err == nil && re.MatchString(v)
}

// Matches reports whether v is a value the parameter accepts.
func (p ParamSpec) Matches(v string) bool { return matches(p.Pattern, v) }

// Matches reports whether v is a value the output accepts.
func (o OutputSpec) Matches(v string) bool { return matches(o.Pattern, v) }

// ParamError is a problem of one parameter of a custom step; Name is the
// parameter's. Messages never hold a value: parameters may be sensitive.
type ParamError struct {
	Name    string
	Message string
	// Given is true when the parameter was given (undeclared, or not
	// matching its pattern), false when it is missing.
	Given bool
}

// ResolveParams returns the parameters of a run of the step: values with
// the declared defaults added. A value that does not match its pattern, a
// parameter the step does not declare and a missing required one are
// errors, every one of them, by parameter name. The submission and the
// step itself both resolve through it, so the rule has one home.
func (s *CustomSpec) ResolveParams(values map[string]string) (map[string]string, []ParamError) {
	out := make(map[string]string, len(s.Params))
	var errs []ParamError
	for _, name := range sortedNames(values) {
		p, ok := s.Params[name]
		switch {
		case !ok:
			errs = append(errs, ParamError{Name: name, Given: true, Message: s.Undeclared()})
		case !p.Matches(values[name]):
			errs = append(errs, ParamError{Name: name, Given: true,
				Message: fmt.Sprintf("does not match the pattern step %s declares for it", s.Name)})
		default:
			out[name] = values[name]
		}
	}
	for _, name := range sortedNames(s.Params) {
		if _, ok := values[name]; ok {
			continue
		}
		p := s.Params[name]
		switch {
		case p.Default != nil:
			out[name] = *p.Default
		case p.Required:
			errs = append(errs, ParamError{Name: name, Message: fmt.Sprintf("is required by step %s", s.Name)})
		}
	}
	return out, errs
}

// Undeclared is the error of a parameter the step does not declare.
func (s *CustomSpec) Undeclared() string {
	if len(s.Params) == 0 {
		return fmt.Sprintf("undeclared parameter: step %s declares no parameters", s.Name)
	}
	return fmt.Sprintf("undeclared parameter: step %s declares %s", s.Name, strings.Join(sortedNames(s.Params), ", "))
}

// SecretNames lists every logical secret the step names, sorted: those of
// its run, of its dry run, and its SSH login. The environment configuration
// must declare each of them.
func (s *CustomSpec) SecretNames() []string {
	names := slices.Clone(s.Secrets)
	if s.DryRun != nil {
		names = append(names, s.DryRun.Secrets...)
	}
	if s.SSH != nil {
		for _, n := range []string{s.SSH.KeySecret, s.SSH.PasswordSecret} {
			if n != "" {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
