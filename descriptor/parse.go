package descriptor

import (
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/yamltree"
)

// rawDescriptor is the document as written; Parse validates it and converts
// it to deploy.Descriptor.
type rawDescriptor struct {
	APIVersion  string                       `yaml:"apiVersion"`
	Kind        string                       `yaml:"kind"`
	ID          string                       `yaml:"id"`
	Tenant      string                       `yaml:"tenant"`
	Application string                       `yaml:"application"`
	Environment string                       `yaml:"environment"`
	Description string                       `yaml:"description"`
	Labels      map[string]string            `yaml:"labels"`
	Artifact    *rawArtifact                 `yaml:"artifact"`
	DryRun      bool                         `yaml:"dryRun"`
	Deploy      rawDeploy                    `yaml:"deploy"`
	Steps       map[string]bool              `yaml:"steps"`
	StepParams  map[string]map[string]string `yaml:"stepParams"`
	// FreezeOverride is a pointer so that an empty mapping is told from none.
	FreezeOverride *rawFreezeOverride `yaml:"freezeOverride"`
	After          []string           `yaml:"after"`
	// AfterTimeout is a string because it also takes days (7d).
	AfterTimeout string               `yaml:"afterTimeout"`
	Schedule     *rawSchedule         `yaml:"schedule"`
	Imports      map[string]rawImport `yaml:"imports"`
	Exports      map[string]rawExport `yaml:"exports"`
	Rollback     *rawRollback         `yaml:"rollback"`
	Rollout      *RolloutDoc          `yaml:"rollout"`
	Commit       *rawCommit           `yaml:"commit"`
	Remediation  bool                 `yaml:"remediation"`
	Callbacks    []rawCallback        `yaml:"callbacks"`

	afterTimeout time.Duration
}

type rawFreezeOverride struct {
	Reason string `yaml:"reason"`
}

type rawArtifact struct {
	Type    string `yaml:"type"`
	Name    string `yaml:"name"`
	Version string `yaml:"version"`
	Source  string `yaml:"source"`
	SHA256  string `yaml:"sha256"`
	// CreatedAt is a string so that a wrong time is reported on its path.
	CreatedAt string `yaml:"createdAt"`

	createdAt *time.Time
}

type rawDeploy struct {
	Targets     []TargetSpec            `yaml:"targets"`
	Params      map[string]string       `yaml:"params"`
	TargetsFrom []rawImportRef          `yaml:"targetsFrom"`
	ParamsFrom  map[string]rawImportRef `yaml:"paramsFrom"`
}

// parseContext is what a document is read in: alone, or as a deploy of a
// release.
type parseContext struct {
	// inRelease refuses what a deploy of a release cannot have.
	inRelease bool
	// releaseAfter names the deploys of the release this one follows: a
	// deployment import may name them, and afterTimeout bounds their wait.
	releaseAfter []string
}

// Parse reads a manent/v1 descriptor written in YAML or JSON. Any problem
// yields an *deploy.Error with EINVALID whose Fields list every problem
// found, each with its path (deploy.targets[2].path); syntax errors carry
// their line instead. A kind: Release document is refused: route documents
// with Kind and read releases with ParseRelease.
func Parse(data []byte) (*deploy.Descriptor, error) {
	d, fields := parse(data, parseContext{})
	if fields != nil {
		return nil, invalid(fields)
	}
	return d, nil
}

func parse(data []byte, ctx parseContext) (*deploy.Descriptor, []deploy.FieldError) {
	root, fields := yamltree.Parse(data, MaxBytes)
	if fields != nil {
		return nil, fields
	}
	if root == nil {
		return nil, []deploy.FieldError{{Message: "document is empty"}}
	}
	if root.Kind != yaml.MappingNode {
		return nil, []deploy.FieldError{{Message: "the descriptor must be a mapping of fields (apiVersion, application, environment, artifact, ...)"}}
	}
	var raw rawDescriptor
	var errs yamltree.Errors
	yamltree.Decode(root, "", &raw, &errs)
	if raw.Kind == KindRelease {
		// A Release has its own fields: reporting them as unknown would bury
		// the one thing the author needs to know.
		return nil, []deploy.FieldError{{Path: "kind", Message: msgReleaseKind}}
	}
	check(&errs, &raw)
	checkChains(&errs, &raw, ctx)
	if errs.Len() > 0 {
		return nil, errs.List()
	}
	return raw.descriptor(), nil
}

func invalid(fields []deploy.FieldError) *deploy.Error {
	return &deploy.Error{Code: deploy.EINVALID, Message: "invalid descriptor", Fields: fields}
}

func check(errs *yamltree.Errors, d *rawDescriptor) {
	switch {
	case d.APIVersion == "":
		required(errs, "apiVersion")
	case d.APIVersion != APIVersion:
		errs.Add("apiVersion", "must be %s", APIVersion)
	}
	if d.Kind != "" && d.Kind != KindDeployment {
		errs.Add("kind", "must be %s", KindDeployment)
	}
	if d.ID != "" {
		if msg := DeployIDProblem(d.ID); msg != "" {
			errs.Add("id", "%s", msg)
		}
	}
	if d.Tenant != "" && !namePattern.MatchString(d.Tenant) {
		errs.Add("tenant", msgNamePattern)
	}
	checkName(errs, "application", d.Application)
	checkName(errs, "environment", d.Environment)
	switch {
	case utf8.RuneCountInString(d.Description) > MaxDescription:
		errs.Add("description", "must be at most %d characters", MaxDescription)
	default:
		checkLines(errs, "description", d.Description)
	}
	CheckLabels(errs, "labels", d.Labels)
	checkArtifact(errs, d.Artifact)
	checkProvenance(errs, d)
	CheckTargets(errs, "deploy.targets", d.Deploy.Targets)
	CheckParams(errs, "deploy.params", d.Deploy.Params)
	checkSteps(errs, d.Steps)
	CheckStepParams(errs, "stepParams", d.StepParams)
	if o := d.FreezeOverride; o != nil {
		switch {
		case strings.TrimSpace(o.Reason) == "":
			required(errs, "freezeOverride.reason")
		case utf8.RuneCountInString(o.Reason) > MaxFreezeReason:
			errs.Add("freezeOverride.reason", "must be at most %d characters", MaxFreezeReason)
		default:
			checkLine(errs, "freezeOverride.reason", o.Reason)
		}
	}
	checkRollback(errs, d.Rollback)
	checkCallbacks(errs, d.Callbacks)
	if d.Rollout != nil {
		if d.Rollout.empty() && !errs.Bad("rollout") {
			errs.Add("rollout", "must give at least one key: leave rollout out to keep the environment's")
		}
		d.Rollout.Check(errs, "rollout")
	}
}

// required records a missing field unless the field was already reported
// (a value of the wrong type decodes to nothing).
func required(errs *yamltree.Errors, path string) {
	if !errs.Bad(path) {
		errs.Add(path, msgRequired)
	}
}

func checkName(errs *yamltree.Errors, path, v string) {
	switch {
	case v == "":
		required(errs, path)
	case !namePattern.MatchString(v):
		errs.Add(path, msgNamePattern)
	}
}

func checkArtifact(errs *yamltree.Errors, a *rawArtifact) {
	if a == nil {
		required(errs, "artifact")
		return
	}
	switch {
	case a.Type == "":
		required(errs, "artifact.type")
	case !typePattern.MatchString(a.Type):
		errs.Add("artifact.type", "must be 1 to 32 characters of a-z, 0-9 and -, starting with a letter")
	}
	checkName(errs, "artifact.name", a.Name)
	switch {
	case a.Version == "":
		required(errs, "artifact.version")
	case !versionPattern.MatchString(a.Version):
		errs.Add("artifact.version", "must be 1 to 128 characters of A-Z, a-z, 0-9, '.', '+', '_' and -, starting with a letter or digit")
	}
	if a.Source == "" {
		required(errs, "artifact.source")
	} else if msg := sourceProblem(a.Source); msg != "" {
		errs.Add("artifact.source", "%s", msg)
	}
	if a.SHA256 != "" && !sha256Pattern.MatchString(a.SHA256) {
		errs.Add("artifact.sha256", "must be 64 lowercase hexadecimal digits")
	}
}

// sourceProblem says what is wrong with an artifact source, "" if nothing.
// Credentials are refused because the source is shown in every status.
func sourceProblem(src string) string {
	if len(src) > MaxSource {
		return "must be at most 2048 bytes"
	}
	u, err := url.Parse(src)
	if err != nil {
		return "must be a URL (file:, http:// or https://)"
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return "a file: source cannot name a host"
		}
		if u.Opaque == "" && u.Path == "" {
			return "a file: source must name a file"
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return "a file: source cannot have a query or a fragment"
		}
	case "http", "https":
		if u.Host == "" {
			return "must name a host"
		}
		if u.User != nil {
			return "must not contain credentials"
		}
	default:
		return "must be a URL with the scheme file, http or https"
	}
	return ""
}

func checkSteps(errs *yamltree.Errors, steps map[string]bool) {
	if len(steps) > MaxSteps {
		errs.Add("steps", "at most %d steps are allowed, found %d", MaxSteps, len(steps))
		return
	}
	for _, k := range sortedKeys(steps) {
		if !stepPattern.MatchString(k) {
			errs.Add(yamltree.Key("steps", k), msgStepPattern)
		}
	}
}

func (d *rawDescriptor) descriptor() *deploy.Descriptor {
	out := &deploy.Descriptor{
		APIVersion:  d.APIVersion,
		Kind:        d.Kind,
		ID:          d.ID,
		Tenant:      d.Tenant,
		Application: d.Application,
		Environment: d.Environment,
		Description: d.Description,
		Labels:      d.Labels,
		Artifact: deploy.Artifact{
			Type: d.Artifact.Type, Name: d.Artifact.Name, Version: d.Artifact.Version,
			Source: d.Artifact.Source, SHA256: d.Artifact.SHA256,
			CreatedAt: d.Artifact.createdAt,
		},
		DryRun: d.DryRun,
		Deploy: deploy.DeploySection{
			Targets:     Targets(d.Deploy.Targets),
			Params:      d.Deploy.Params,
			TargetsFrom: importRefs(d.Deploy.TargetsFrom),
			ParamsFrom:  paramRefs(d.Deploy.ParamsFrom),
		},
		Steps:        d.Steps,
		StepParams:   d.StepParams,
		After:        nonEmpty(d.After),
		AfterTimeout: d.afterTimeout,
		Schedule:     d.Schedule.schedule(),
		Imports:      imports(d.Imports),
		Exports:      exports(d.Exports),
		Rollback:     d.Rollback.override(),
		Rollout:      d.Rollout.Override(),
		Commit:       d.Commit.commit(),
		Remediation:  d.Remediation,
		Callbacks:    callbacks(d.Callbacks),
	}
	if d.FreezeOverride != nil {
		out.FreezeOverride = &deploy.FreezeOverride{Reason: d.FreezeOverride.Reason}
	}
	if out.Kind == "" {
		out.Kind = KindDeployment
	}
	return out
}
