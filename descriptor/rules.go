package descriptor

import (
	"regexp"
	"slices"
	"unicode/utf8"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/yamltree"
)

// Limits of a descriptor. The environment configuration shares the target,
// parameter and label limits.
const (
	MaxBytes       = 1 << 20
	MaxTargets     = 500
	MaxParams      = 64
	MaxLabels      = 64
	MaxSteps       = 64
	MaxDescription = 1024
	MaxLabelValue  = 256
	MaxSource      = 2048
	MaxPath        = 4096
	// MaxFreezeReason bounds freezeOverride.reason, which the audit log keeps.
	MaxFreezeReason = 512
)

// What a descriptor declares itself as.
const (
	APIVersion     = "manent/v1"
	KindDeployment = "Deployment"
	KindRelease    = "Release"
)

const (
	msgRequired       = "is required"
	msgNamePattern    = "must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter or digit"
	msgParamPattern   = "name must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter"
	msgStepPattern    = "step name must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter"
	msgLabelKey       = "key must be 1 to 63 characters of a-z, 0-9, '.', '_', '/' and -, starting with a letter or digit"
	msgHostPattern    = "must be a host name or an IP address"
	msgUserPattern    = "must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and -, not starting with - or ."
	msgTargetNeedsOne = "needs a host or a path"
)

// DeployIDProblem says what is wrong with id as the ID someone gives a
// deploy (a descriptor's id, a rollback's), "" when nothing: besides its
// pattern, it must not have the form of the deploys of a schedule's ticks,
// which no one but the schedule may create (deploy.IsTickID).
func DeployIDProblem(id string) string {
	switch {
	case !idPattern.MatchString(id):
		return msgIDPattern
	case deploy.IsTickID(id):
		return msgTickID
	}
	return ""
}

// DeployRefProblem says what is wrong with id as the ID of a deploy that
// exists (a rollback's to), "" when nothing: its pattern, which a tick's
// ID has too.
func DeployRefProblem(id string) string {
	if !idPattern.MatchString(id) {
		return msgIDPattern
	}
	return ""
}

var (
	namePattern     = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
	idPattern       = regexp.MustCompile(`^[a-z0-9][a-z0-9._@-]{0,127}$`)
	labelKeyPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9._/-]{0,62})$`)
	typePattern     = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)
	versionPattern  = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+_-]{0,127}$`)
	sha256Pattern   = regexp.MustCompile(`^[0-9a-f]{64}$`)
	paramPattern    = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)
	stepPattern     = regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)
	// A host must not start with - so that it can never be read as an option
	// by ssh or scp.
	hostPattern = regexp.MustCompile(`^[A-Za-z0-9\[]([A-Za-z0-9._:%\[\]-]{0,252})$`)
	userPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$`)
)

// ValidName reports whether s is a valid tenant, application or environment name.
func ValidName(s string) bool { return namePattern.MatchString(s) }

// ValidParamName reports whether s is a valid parameter name.
func ValidParamName(s string) bool { return paramPattern.MatchString(s) }

// ValidStepName reports whether s is a valid step name.
func ValidStepName(s string) bool { return stepPattern.MatchString(s) }

// ValidUser reports whether s is a valid login name on a target.
func ValidUser(s string) bool { return userPattern.MatchString(s) }

// MsgUser says what ValidUser accepts.
const MsgUser = msgUserPattern

// ValidPluginName reports whether s is a valid plugin or artifact type name.
func ValidPluginName(s string) bool { return typePattern.MatchString(s) }

// TargetSpec is a target as written in a descriptor or an environment
// configuration. Port is a pointer so that an explicit 0 is refused rather
// than taken as "no port".
type TargetSpec struct {
	Host   string            `yaml:"host"`
	Port   *int              `yaml:"port"`
	User   string            `yaml:"user"`
	Path   string            `yaml:"path"`
	Labels map[string]string `yaml:"labels"`
}

// Target converts the spec to the domain type.
func (t TargetSpec) Target() deploy.Target {
	out := deploy.Target{Host: t.Host, User: t.User, Path: t.Path, Labels: t.Labels}
	if t.Port != nil {
		out.Port = *t.Port
	}
	return out
}

// Targets converts specs to domain targets; nil stays nil.
func Targets(specs []TargetSpec) []deploy.Target {
	if specs == nil {
		return nil
	}
	out := make([]deploy.Target, len(specs))
	for i, s := range specs {
		out[i] = s.Target()
	}
	return out
}

// CheckTargets records the problems of the targets at path.
func CheckTargets(errs *yamltree.Errors, path string, targets []TargetSpec) {
	if len(targets) > MaxTargets {
		errs.Add(path, "at most %d targets are allowed, found %d", MaxTargets, len(targets))
		return
	}
	for i, t := range targets {
		p := yamltree.Index(path, i)
		if t.Host == "" && t.Path == "" && !errs.Bad(p+".host") && !errs.Bad(p+".path") && !errs.Bad(p) {
			errs.Add(p, msgTargetNeedsOne)
		}
		if t.Host != "" && !hostPattern.MatchString(t.Host) {
			errs.Add(p+".host", msgHostPattern)
		}
		if t.Port != nil && (*t.Port < 1 || *t.Port > 65535) {
			errs.Add(p+".port", "must be between 1 and 65535")
		}
		if t.User != "" && !userPattern.MatchString(t.User) {
			errs.Add(p+".user", msgUserPattern)
		}
		if t.Path != "" {
			checkPath(errs, p+".path", t.Path)
		}
		CheckLabels(errs, p+".labels", t.Labels)
	}
}

func checkPath(errs *yamltree.Errors, path, v string) {
	switch {
	case len(v) > MaxPath:
		errs.Add(path, "must be at most %d bytes", MaxPath)
	case v[0] == '-':
		errs.Add(path, "must not start with -")
	default:
		checkLine(errs, path, v)
	}
}

// checkLine records at path the first rune of v that a terminal would act
// on instead of showing (deploy.UnsafeText): C0, DEL, C1, line separators,
// controls of bidirectional text. Nothing of them is allowed.
func checkLine(errs *yamltree.Errors, path, v string) {
	if why := deploy.UnsafeText(v, ""); why != "" {
		errs.Add(path, "must not contain control characters: %s", why)
	}
}

// checkLines is checkLine for text of several lines: new lines and tabs
// are allowed.
func checkLines(errs *yamltree.Errors, path, v string) {
	if why := deploy.UnsafeText(v, "\n\t"); why != "" {
		errs.Add(path, "must be text without control characters (other than new lines and tabs): %s", why)
	}
}

// CheckLabels records the problems of labels at path.
func CheckLabels(errs *yamltree.Errors, path string, labels map[string]string) {
	if len(labels) > MaxLabels {
		errs.Add(path, "at most %d labels are allowed, found %d", MaxLabels, len(labels))
		return
	}
	for _, k := range sortedKeys(labels) {
		p := yamltree.Key(path, k)
		if !labelKeyPattern.MatchString(k) {
			errs.Add(p, msgLabelKey)
		}
		switch v := labels[k]; {
		case utf8.RuneCountInString(v) > MaxLabelValue:
			errs.Add(p, "must be at most %d characters", MaxLabelValue)
		default:
			checkLine(errs, p, v)
		}
	}
}

// CheckParams records the problems of parameters at path.
func CheckParams(errs *yamltree.Errors, path string, params map[string]string) {
	if len(params) > MaxParams {
		errs.Add(path, "at most %d parameters are allowed, found %d", MaxParams, len(params))
		return
	}
	for _, k := range sortedKeys(params) {
		if !paramPattern.MatchString(k) {
			errs.Add(yamltree.Key(path, k), msgParamPattern)
		} else {
			checkLines(errs, yamltree.Key(path, k), params[k])
		}
	}
}

// CheckStepParams records the problems of per-step parameters at path.
func CheckStepParams(errs *yamltree.Errors, path string, sp map[string]map[string]string) {
	if len(sp) > MaxSteps {
		errs.Add(path, "at most %d steps are allowed, found %d", MaxSteps, len(sp))
		return
	}
	for _, step := range sortedKeys(sp) {
		p := yamltree.Key(path, step)
		if !stepPattern.MatchString(step) {
			errs.Add(p, msgStepPattern)
		}
		CheckParams(errs, p, sp[step])
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// NameProblem says what is wrong with name as an application or
// environment name given outside a descriptor (a promotion's target), ""
// when nothing.
func NameProblem(name string) string {
	if !namePattern.MatchString(name) {
		return msgNamePattern
	}
	return ""
}
