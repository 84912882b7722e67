package chains

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"manent.dev/manent/deploy"
)

// MsgExportsInvalid is the message of the error that fails a deploy whose
// exports do not match their declaration.
const MsgExportsInvalid = "exports of the deploy not valid"

// CheckExports builds the exports of a succeeded deploy from its declared
// exports and the outputs of its steps (step → key → value). Only declared
// outputs become exports; a targets export is normalised to a JSON list of
// objects. The exports are sorted by name.
//
// Every problem (a missing output, a value outside its format or pattern,
// more than deploy.MaxExportTargets targets, a value over
// deploy.MaxExportValue, all values over deploy.MaxExportsTotal, more than
// deploy.MaxExports exports) is listed in one EUNPROCESSABLE, permanent
// *deploy.Error with paths exports.<name>; messages quote at most a short
// prefix of a value, since outputs are untrusted.
func CheckExports(specs map[string]deploy.ExportSpec, outputs map[string]map[string]string) ([]deploy.Export, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	var errs []deploy.FieldError
	if len(specs) > deploy.MaxExports {
		errs = append(errs, deploy.FieldError{Path: "exports", Message: fmt.Sprintf("at most %d exports are allowed, found %d", deploy.MaxExports, len(specs))})
	}
	exports := make([]deploy.Export, 0, len(specs))
	total := 0
	for _, name := range sortedKeys(specs) {
		exp, problems := checkExport(name, specs[name], outputs)
		for _, msg := range problems {
			errs = append(errs, deploy.FieldError{Path: "exports." + name, Message: msg})
		}
		if len(problems) == 0 {
			total += len(exp.Value)
			exports = append(exports, exp)
		}
	}
	if total > deploy.MaxExportsTotal {
		errs = append(errs, deploy.FieldError{Path: "exports", Message: fmt.Sprintf("the values total %d bytes, more than %d", total, deploy.MaxExportsTotal)})
	}
	if len(errs) > 0 {
		return nil, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: MsgExportsInvalid, Fields: errs, Permanent: true}
	}
	return exports, nil
}

// checkExport returns the export and the problems found, as messages.
func checkExport(name string, spec deploy.ExportSpec, outputs map[string]map[string]string) (deploy.Export, []string) {
	format := spec.Format
	if format == "" {
		format = deploy.ExportString
	}
	pattern, problem := compilePattern(spec.Pattern, format)
	if problem != "" {
		return deploy.Export{}, []string{problem}
	}
	step, key, ok := SplitFrom(spec.From)
	if !ok || step == "" || key == "" {
		return deploy.Export{}, []string{"from must be <step>.<key>"}
	}
	value, ok := outputs[step][key]
	if !ok {
		return deploy.Export{}, []string{fmt.Sprintf("output %s is missing: the step did not produce it", spec.From)}
	}
	if len(value) > deploy.MaxExportValue {
		return deploy.Export{}, []string{fmt.Sprintf("the value of %s is %d bytes, more than %d", spec.From, len(value), deploy.MaxExportValue)}
	}
	exp := deploy.Export{Name: name, Format: format, Public: spec.Public}
	switch format {
	case deploy.ExportString:
		if !utf8.ValidString(value) {
			return deploy.Export{}, []string{fmt.Sprintf("the value of %s is not valid UTF-8", spec.From)}
		}
		if !pattern.MatchString(value) {
			return deploy.Export{}, []string{fmt.Sprintf("the %s of %s does not match the pattern", prefix(value), spec.From)}
		}
		exp.Value = value
	case deploy.ExportTargets:
		targets, errs := parseTargets(value, pattern)
		if len(errs) > 0 {
			msgs := make([]string, len(errs))
			for i, e := range errs {
				msgs[i] = fmt.Sprintf("%s: %s", "targets"+e.Path, e.Message)
			}
			return deploy.Export{}, msgs
		}
		exp.Value = formatTargets(targets)
		// Normalising adds {"host":…} around plain strings: the stored value
		// is what the limit protects.
		if len(exp.Value) > deploy.MaxExportValue {
			return deploy.Export{}, []string{fmt.Sprintf("the targets of %s take %d bytes as objects, more than %d", spec.From, len(exp.Value), deploy.MaxExportValue)}
		}
	}
	return exp, nil
}

// compilePattern anchors the pattern so that it matches the whole value: a
// pattern 10\.20\.\d+ must not accept 10.20.1.1;rm -rf.
func compilePattern(pattern, format string) (*regexp.Regexp, string) {
	switch format {
	case deploy.ExportString:
		if pattern == "" {
			return nil, "a string export needs a pattern"
		}
	case deploy.ExportTargets:
		if pattern == "" {
			return nil, ""
		}
	default:
		return nil, fmt.Sprintf("format must be %s or %s", deploy.ExportString, deploy.ExportTargets)
	}
	re, err := CompilePattern(pattern)
	if err != nil {
		return nil, "pattern is not a valid regular expression"
	}
	return re, ""
}

// CompilePattern returns an export pattern anchored to match whole values
// only (^(?:pattern)$), for the descriptor's validation at submit time too.
func CompilePattern(pattern string) (*regexp.Regexp, error) {
	re, err := deploy.CompilePattern(pattern)
	if err != nil {
		return nil, fmt.Errorf("export pattern: %w", err)
	}
	return re, nil
}

// SplitFrom reads an export's from, <step>.<key>: the step whose output
// gives the value, and the key of that output.
func SplitFrom(from string) (step, key string, ok bool) {
	return strings.Cut(from, ".")
}
