package deploy

import (
	"context"
	"net"
	"strconv"
	"strings"
)

// PluginRequest is what a plugin receives for one operation on its targets.
type PluginRequest struct {
	DeploymentID string
	// Step is the step of the operation: deploy or activation, also for
	// their checkpoints and compensations.
	Step string
	// IdempotencyKey is unique per deploy, step, pass, batch and kind of
	// attempt (run, dry-run, rollback); TargetKey makes it unique per target
	// too. A plugin that sees a target's key twice must leave that target as
	// after the first time.
	IdempotencyKey string
	Tenant         string
	Application    string
	Environment    string
	Artifact       Artifact
	// ArtifactPath is the local file of the verified artifact.
	ArtifactPath string
	SHA256       string
	// Limits bound what the artifact may unpack to. A plugin that unpacks
	// it refuses, permanently and before it changes a target, an artifact
	// over them; a limit left at zero takes its default.
	Limits  ArchiveLimits
	Targets []Target
	Params  map[string]string
	// SSH is the login of the targets, for the ssh plugin.
	SSH    *SSHLogin
	DryRun bool
	// Succeeded are the versions of the last deploys of the application
	// to the environment that succeeded, newest first, each once, as
	// manent recorded them (never as a target shows them): a plugin that
	// prunes old releases keeps those. Set for the activation step only.
	Succeeded []string
	// Secret resolves a logical secret name of the environment configuration.
	Secret func(ctx context.Context, name string) (string, error)
	// Log writes a line to the deploy log.
	Log func(format string, args ...any)
}

// Result is what a plugin operation returns. Outputs must never contain secrets.
type Result struct {
	Outputs map[string]string
}

// Checkpoint is the state to go back to, recorded before a step that can be
// undone. Data is the plugin's own (shown in the step's output, so it holds
// releases and paths, never a secret).
type Checkpoint struct {
	Data map[string]string `json:"data"`
}

// Plugin deploys artifacts to targets. Every method is idempotent: running it
// twice with the same request leaves the targets as running it once.
// Temporary failures are returned as plain errors (retried); failures that
// cannot improve are wrapped with Permanent. A method that fails may still
// return outputs (what each target did): the step records them with its
// error.
type Plugin interface {
	Name() string
	// ValidateTargets checks targets and params at submission (paths, hosts).
	ValidateTargets(targets []Target, params map[string]string) []FieldError
	// Deploy puts the release on the targets without putting it in service.
	Deploy(ctx context.Context, req PluginRequest) (Result, error)
	// Activate puts the deployed release in service.
	Activate(ctx context.Context, req PluginRequest) (Result, error)
	// Checkpoint records, before req.Step runs, what its compensation needs
	// to undo it: for activation the release in service, for deploy also
	// whether the release was already on the targets. It changes nothing.
	Checkpoint(ctx context.Context, req PluginRequest) (Checkpoint, error)
	// Rollback undoes req.Step on the targets, back to the checkpoint taken
	// before it: activation puts the checkpoint's release back in service,
	// deploy removes a release the step added. It must also undo a step that
	// failed part-way, and leave a target it never reached as it is.
	Rollback(ctx context.Context, req PluginRequest, cp Checkpoint) (Result, error)
}

// SecretProvider resolves secret references of one scheme (env:, file:, vault:).
type SecretProvider interface {
	Scheme() string
	// Resolve returns the secret. Errors never contain the secret's value.
	Resolve(ctx context.Context, ref string) (string, error)
}

// ArchiveLimits bound an unpacked artifact (artifacts.max_entries and
// artifacts.max_unpacked_size), so that a small hostile archive cannot fill
// a target's disk or its inodes.
type ArchiveLimits struct {
	// MaxEntries counts every entry of the archive, whatever its type
	// (files, directories, links), and every directory an entry's path
	// implies without naming it: each of them is an inode on the target.
	MaxEntries int
	// MaxBytes is the sum of the sizes of the files, as unpacked.
	MaxBytes int64
}

// SucceededVersions is how many versions PluginRequest.Succeeded lists at
// most.
const SucceededVersions = 50

// The limits of an artifact when manent.yml does not set them.
const (
	DefaultMaxEntries       = 100_000
	DefaultMaxUnpackedBytes = 4 << 30
)

// OrDefault returns l with each limit left at zero set to its default: a
// request that says nothing is still bounded.
func (l ArchiveLimits) OrDefault() ArchiveLimits {
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxUnpackedBytes
	}
	return l
}

// TargetKey is the idempotency key of one target of the request. It
// names the target by all that makes it one: two logins of one host, or
// one login on two ports, are two targets (user@host:port[:path]); a
// target with a host or a path only is named as Name names it. The form
// differs from Name's where a port has no user (@host:port) and stays so:
// the keys are written in the targets' journals, and a retried step must
// find the key its first attempt wrote.
func (r PluginRequest) TargetKey(t Target) string {
	if t.User == "" && t.Port == 0 {
		return r.IdempotencyKey + ":" + t.Name()
	}
	name := t.User + "@" + t.Host
	if t.Port != 0 {
		host := strings.TrimSuffix(strings.TrimPrefix(t.Host, "["), "]")
		name = t.User + "@" + net.JoinHostPort(host, strconv.Itoa(t.Port))
	}
	if t.Path != "" {
		name += ":" + t.Path
	}
	return r.IdempotencyKey + ":" + name
}
