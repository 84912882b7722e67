package deploy

import (
	"encoding/json"
	"time"
)

// Limits of deploy chains (spec: deploy chains).
const (
	MaxAfter             = 20
	DefaultAfterTimeout  = 24 * time.Hour
	MinAfterTimeout      = time.Minute
	MaxAfterTimeout      = 30 * 24 * time.Hour
	MaxImports           = 10
	MaxExports           = 32
	MaxExportValue       = 64 << 10
	MaxExportsTotal      = 256 << 10
	MaxExportTargets     = 500
	MaxPluginOutputKeys  = 64
	MaxReleaseDeploys    = 100
	DefaultChainsPoll    = 5 * time.Second
	MaxChainsPollBackoff = 5 * time.Minute
)

// Schedule is the descriptor's schedule: at a time (DELAYED), or a recurring
// cron schedule (SCHEDULED).
type Schedule struct {
	At *time.Time `json:"at,omitempty"`
	// Cron is a 5-field cron expression, evaluated in TimeZone (default UTC).
	Cron     string `json:"cron,omitempty"`
	TimeZone string `json:"timezone,omitempty"`
}

// Import binds a name to the exports of another deploy: a given one
// (Deployment, which must be in after) or the release in service of an
// application (Current).
type Import struct {
	Deployment string         `json:"deployment,omitempty"`
	Current    *CurrentImport `json:"current,omitempty"`
}

// CurrentImport names the release in service of an application.
type CurrentImport struct {
	Application string `json:"application"`
	// Environment defaults to the deploy's own.
	Environment string `json:"environment,omitempty"`
	Artifact    string `json:"artifact,omitempty"`
	Tenant      string `json:"tenant,omitempty"`
}

// ExportSpec declares an output of the deploy as an export.
type ExportSpec struct {
	// From is <step>.<key>: an output of a step.
	From string `json:"from"`
	// Format is string (default) or targets.
	Format string `json:"format,omitempty"`
	// Pattern is matched against the whole value (string, required) or each
	// host (targets, optional).
	Pattern string `json:"pattern,omitempty"`
	// Public makes the export readable from other tenants through current imports.
	Public bool `json:"public,omitempty"`
}

// Export formats.
const (
	ExportString  = "string"
	ExportTargets = "targets"
)

// ImportRef points at one export of an import.
type ImportRef struct {
	Import string `json:"import"`
	Export string `json:"export"`
}

// Export is a checked export value of a succeeded deploy.
type Export struct {
	Name   string `json:"name"`
	Format string `json:"format"`
	// Value is the string, or the JSON list of targets.
	Value  string `json:"value"`
	Public bool   `json:"public,omitempty"`
}

// Dependency is one deploy a deploy waits for, with its state now: ""
// when it is unknown to the viewer (unreadable, or removed by retention).
type Dependency struct {
	ID    string `json:"id"`
	State State  `json:"state"`
	// Resource is where the deploy is, for the read check of its viewers
	// (dependents only; never serialised).
	Resource Resource `json:"-"`
}

// Prerequisite is what a submission checks of a deploy its after: names:
// where it is and its state (Dependency), and whether it is a dry run.
type Prerequisite struct {
	Dependency
	DryRun bool
}

// MarshalJSON writes an unknown state as null, as GraphQL does, never "".
func (d Dependency) MarshalJSON() ([]byte, error) {
	out := struct {
		ID    string `json:"id"`
		State *State `json:"state"`
	}{ID: d.ID}
	if d.State != "" {
		out.State = &d.State
	}
	return json.Marshal(out)
}

// AfterStatus is the after section of the status JSON.
type AfterStatus struct {
	// Status is waiting, satisfied, failed, or the state of a deploy that
	// ended while it waited (cancelled; error when a worker abandoned it).
	Status       string       `json:"status"`
	ExpiresAt    *time.Time   `json:"expires_at"`
	Reason       string       `json:"reason,omitempty"`
	Dependencies []Dependency `json:"dependencies"`
}

// OnFailure policies of a release.
const (
	OnFailureStop     = "stop"
	OnFailureContinue = "continue"
	OnFailureRollback = "rollback"
)

// ReleaseDescriptor is a parsed kind: Release document.
type ReleaseDescriptor struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	ID         string          `json:"id"`
	OnFailure  string          `json:"onFailure"`
	Deploys    []ReleaseMember `json:"deploys"`
}

// ReleaseMember is one deploy of a release: its descriptor comes from a
// file next to the release (CLI) or inline (API).
type ReleaseMember struct {
	Name string `json:"name"`
	// File is relative to the release document; the CLI inlines it.
	File string `json:"file,omitempty"`
	// Descriptor is the deploy's descriptor document (YAML or JSON).
	Descriptor string `json:"descriptor,omitempty"`
	// After names other members of the release.
	After []string `json:"after,omitempty"`
}
