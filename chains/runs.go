package chains

import (
	"fmt"
	"strings"

	"manent.dev/manent/deploy"
)

// JoinRuns combines the outputs of the runs of the steps of a wave rollout
// (step → key → value, one map per pass and batch, in order) into the
// outputs CheckExports reads: the lists of a targets export are joined in
// order, a string export must have the same value in every run that gave
// it. Outputs that no export declares keep the value of the last run. The
// problems are reported as CheckExports reports them.
func JoinRuns(specs map[string]deploy.ExportSpec, runs []map[string]map[string]string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	for _, run := range runs {
		for step, kv := range run {
			if out[step] == nil {
				out[step] = map[string]string{}
			}
			for k, v := range kv {
				out[step][k] = v
			}
		}
	}
	var errs []deploy.FieldError
	for _, name := range sortedKeys(specs) {
		spec := specs[name]
		step, key, ok := strings.Cut(spec.From, ".")
		if !ok {
			continue // CheckExports reports the malformed from
		}
		var values []string
		for _, run := range runs {
			if v, ok := run[step][key]; ok {
				values = append(values, v)
			}
		}
		if len(values) < 2 {
			continue
		}
		joined, problem := joinValues(spec.Format, values)
		if problem != "" {
			errs = append(errs, deploy.FieldError{Path: "exports." + name, Message: problem})
			continue
		}
		out[step][key] = joined
	}
	if len(errs) > 0 {
		return nil, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: MsgExportsInvalid, Fields: errs, Permanent: true}
	}
	return out, nil
}

func joinValues(format string, values []string) (string, string) {
	if format != deploy.ExportTargets {
		for _, v := range values[1:] {
			if v != values[0] {
				return "", "a string export must have the same value in every pass and batch"
			}
		}
		return values[0], ""
	}
	var all []deploy.Target
	for i, v := range values {
		if len(v) > deploy.MaxExportValue {
			return "", fmt.Sprintf("run %d: the value is %d bytes, more than %d", i+1, len(v), deploy.MaxExportValue)
		}
		ts, errs := parseTargets(v, nil)
		if len(errs) > 0 {
			return "", fmt.Sprintf("run %d: targets%s: %s", i+1, errs[0].Path, errs[0].Message)
		}
		all = append(all, ts...)
		// Checked as the lists grow: a long rollout must not build a huge
		// value only to refuse it afterwards.
		if len(all) > deploy.MaxExportTargets {
			return "", fmt.Sprintf("at most %d targets are allowed, found more after run %d", deploy.MaxExportTargets, i+1)
		}
	}
	return formatTargets(all), ""
}
