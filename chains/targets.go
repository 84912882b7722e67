package chains

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"manent.dev/manent/deploy"
)

// The syntax of imported targets is the descriptor's (package descriptor,
// which this package may not import): an export feeds the same plugins as a
// descriptor does, so a host starting with - must never reach ssh as an option.
var (
	hostPattern     = regexp.MustCompile(`^[A-Za-z0-9\[]([A-Za-z0-9._:%\[\]-]{0,252})$`)
	userPattern     = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$`)
	labelKeyPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9._/-]{0,62})$`)
)

const (
	maxPath       = 4096
	maxLabels     = 64
	maxLabelValue = 256
	// prefixLen bounds how much of an untrusted value an error message shows.
	prefixLen = 8
)

// wireTarget is one target of a targets export. Path is not in the spec's
// list ({host, port, user, labels}) but is what the local plugin's targets
// are, so that a chain of local deploys can pass its directories along.
type wireTarget struct {
	Host   string            `json:"host,omitempty"`
	Port   *int              `json:"port,omitempty"`
	User   string            `json:"user,omitempty"`
	Path   string            `json:"path,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
}

// ParseTargets reads the value of a targets export: a JSON list whose items
// are plain host strings or objects {host, port, user, path, labels}, at
// most deploy.MaxExportTargets of them, each with a host or a path. It
// returns an EUNPROCESSABLE *deploy.Error listing every problem, with paths
// relative to the list ([2].host); messages never contain the value.
func ParseTargets(value string) ([]deploy.Target, error) {
	ts, errs := parseTargets(value, nil)
	if len(errs) > 0 {
		return nil, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "not a valid list of targets", Fields: errs, Permanent: true}
	}
	return ts, nil
}

// parseTargets is ParseTargets with the export's pattern, matched against
// each host (or the path of a target without host); nil matches anything.
func parseTargets(value string, pattern *regexp.Regexp) ([]deploy.Target, []deploy.FieldError) {
	var items []json.RawMessage
	dec := json.NewDecoder(strings.NewReader(value))
	if err := dec.Decode(&items); err != nil || items == nil || trailing(dec) {
		return nil, []deploy.FieldError{{Message: "must be a JSON list of targets (objects {host, port, user, labels} or host strings)"}}
	}
	if len(items) > deploy.MaxExportTargets {
		return nil, []deploy.FieldError{{Message: fmt.Sprintf("at most %d targets are allowed, found %d", deploy.MaxExportTargets, len(items))}}
	}
	targets := make([]deploy.Target, 0, len(items))
	var errs []deploy.FieldError
	for i, raw := range items {
		p := fmt.Sprintf("[%d]", i)
		w, ok := decodeTarget(raw)
		if !ok {
			errs = append(errs, deploy.FieldError{Path: p, Message: "must be a host string or an object {host, port, user, labels}"})
			continue
		}
		errs = append(errs, checkTarget(p, w, pattern)...)
		t := deploy.Target{Host: w.Host, User: w.User, Path: w.Path, Labels: w.Labels}
		if w.Port != nil {
			t.Port = *w.Port
		}
		targets = append(targets, t)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return targets, nil
}

// trailing reports whether anything but white space follows the list.
func trailing(dec *json.Decoder) bool {
	var extra json.RawMessage
	return dec.Decode(&extra) == nil
}

func decodeTarget(raw json.RawMessage) (wireTarget, bool) {
	var host string
	if err := json.Unmarshal(raw, &host); err == nil {
		return wireTarget{Host: host}, true
	}
	var w wireTarget
	dec := json.NewDecoder(bytes.NewReader(raw))
	// An unknown key is more likely a typo (hostname, ip) than something
	// safe to drop: a target without its intended host must not be deployed to.
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return wireTarget{}, false
	}
	return w, true
}

func checkTarget(p string, w wireTarget, pattern *regexp.Regexp) []deploy.FieldError {
	var errs []deploy.FieldError
	add := func(path, format string, args ...any) {
		errs = append(errs, deploy.FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	if w.Host == "" && w.Path == "" {
		add(p, "needs a host or a path")
	}
	if w.Host != "" && !hostPattern.MatchString(w.Host) {
		add(p+".host", "%s must be a host name or an IP address", prefix(w.Host))
	}
	if w.Port != nil && (*w.Port < 1 || *w.Port > 65535) {
		add(p+".port", "must be between 1 and 65535")
	}
	if w.User != "" && !userPattern.MatchString(w.User) {
		add(p+".user", "%s must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and -, not starting with - or .", prefix(w.User))
	}
	if w.Path != "" {
		switch {
		case len(w.Path) > maxPath:
			add(p+".path", "must be at most %d bytes", maxPath)
		case w.Path[0] == '-':
			add(p+".path", "must not start with -")
		default:
			if why := deploy.UnsafeText(w.Path, ""); why != "" {
				add(p+".path", "must not contain control characters: %s", why)
			}
		}
	}
	if len(w.Labels) > maxLabels {
		add(p+".labels", "at most %d labels are allowed, found %d", maxLabels, len(w.Labels))
	} else {
		for _, k := range sortedKeys(w.Labels) {
			if !labelKeyPattern.MatchString(k) {
				add(p+".labels", "key %s must be 1 to 63 characters of a-z, 0-9, '.', '_', '/' and -, starting with a letter or digit", prefix(k))
			} else if utf8.RuneCountInString(w.Labels[k]) > maxLabelValue {
				add(p+".labels."+k, "must be at most %d characters", maxLabelValue)
			} else if why := deploy.UnsafeText(w.Labels[k], ""); why != "" {
				add(p+".labels."+k, "must not contain control characters: %s", why)
			}
		}
	}
	if pattern != nil {
		switch {
		case w.Host != "" && !pattern.MatchString(w.Host):
			add(p+".host", "%s does not match the pattern", prefix(w.Host))
		case w.Host == "" && w.Path != "" && !pattern.MatchString(w.Path):
			add(p+".path", "%s does not match the pattern", prefix(w.Path))
		}
	}
	return errs
}

// formatTargets is the normalised value of a targets export: a JSON list of
// objects, whatever shape the plugin wrote.
func formatTargets(targets []deploy.Target) string {
	items := make([]wireTarget, len(targets))
	for i, t := range targets {
		items[i] = wireTarget{Host: t.Host, User: t.User, Path: t.Path, Labels: t.Labels}
		if t.Port != 0 {
			port := t.Port
			items[i].Port = &port
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Hosts and labels are shown as they are, not as \u003c escapes.
	enc.SetEscapeHTML(false)
	// Encoding strings, ints and string maps cannot fail.
	_ = enc.Encode(items)
	return strings.TrimSuffix(buf.String(), "\n")
}

// prefix quotes the start of an untrusted value for an error message:
// enough to recognise it, never the whole value (which might be a secret a
// plugin wrongly put in its outputs), at most half of it and prefixLen runes.
func prefix(v string) string {
	runes := []rune(v)
	n := min(len(runes)/2, prefixLen)
	return fmt.Sprintf("value %q…", string(runes[:n]))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
