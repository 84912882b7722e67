package steps

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"sort"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/secrets"
	"manent.dev/manent/internal/specsig"
)

// Kind is one kind of step. Run and DryRun make one attempt; an error is
// temporary (the step is tried again) unless deploy.IsPermanent.
type Kind interface {
	Run(ctx context.Context, c *Context) (Result, error)
	DryRun(ctx context.Context, c *Context) (Result, error)
}

// Undoable is a kind whose effect on the targets can be taken back: before
// it runs, Checkpoint records what to go back to (and changes nothing);
// Compensate goes back there, also after a run that failed part-way.
type Undoable interface {
	Kind
	Checkpoint(ctx context.Context, c *Context) (deploy.Checkpoint, error)
	Compensate(ctx context.Context, c *Context, cp deploy.Checkpoint) (Result, error)
}

// Checks is what the config step asks the service.
type Checks interface {
	Configure(ctx context.Context, who deploy.Identity, d deploy.Descriptor) (deploy.Effective, map[string]string, error)
	Recheck(ctx context.Context, who deploy.Identity, d deploy.Descriptor) (note string, err error)
	// FreezeInForce returns the freeze window in force now over the
	// deploy's environment or one of targets, dry run or not; Overridden
	// when the descriptor's freezeOverride is accepted. nil when none.
	FreezeInForce(ctx context.Context, who deploy.Identity, d deploy.Descriptor, targets []deploy.Target) (*deploy.Freeze, error)
}

// Env is what kinds use beside the operation itself, the same for every
// deploy of a process.
type Env struct {
	Config  *config.Config
	Plugins map[string]deploy.Plugin
	Secrets map[string]deploy.SecretProvider
	HTTP    *http.Client
	Checks  Checks
	// History is manent's record of the releases that succeeded, which
	// the activation step hands its plugin (PluginRequest.Succeeded).
	History deploy.SuccessHistory
	// Inventory is manent's record of the releases in service, which the
	// checkpoint of activation reads for the version its compensation
	// brings back (deploy.OutputInServiceVersion).
	Inventory Inventory
	// Log is the server's log, for what operators need and readers of a
	// deploy must not see (the reference of a missing secret).
	Log *slog.Logger
	// Specs checks the specification of a custom step before any of its
	// operations (the engine does, before it calls the kind): its hash,
	// its signature, the revoked hashes. Nil accepts unsigned ones.
	Specs *specsig.Keyring
}

// Inventory reads the release in service of an environment, by its key.
type Inventory interface {
	InventoryOf(ctx context.Context, res deploy.Resource) (*deploy.InventoryEntry, error)
}

// Context is one operation of a step as a kind sees it. It holds nothing a
// resumed deploy could not rebuild from the records of its steps.
type Context struct {
	Env  *Env
	Job  deploy.Job
	Step deploy.PlannedStep
	Key  deploy.StepKey
	// Effective is the deploy as the config step decided it (the job's
	// until then).
	Effective deploy.Effective
	// SHA256 is the digest of the verified artifact, once downloaded.
	SHA256 string
	// Outputs are the outputs of the steps run so far, by step.
	Outputs map[string]map[string]string
	// Attempt counts the attempts of this operation in this process, from 1.
	Attempt int
	// Log writes a line to the deploy log under the step's name.
	Log func(level, format string, args ...any)
}

// Result is what an operation gives the workflow, which stores it (it must
// survive JSON): the step's output and what later steps need.
type Result struct {
	Output map[string]string `json:"output,omitempty"`
	// Effective is set by the config step.
	Effective *deploy.Effective `json:"effective,omitempty"`
	// SHA256 is set by the artifacts step.
	SHA256 string `json:"sha256,omitempty"`
	// Checkpoint is set by a checkpoint.
	Checkpoint *deploy.Checkpoint `json:"checkpoint,omitempty"`
	// Note is a line for the log after the step (an overridden freeze).
	Note string `json:"note,omitempty"`
}

// Registry maps a planned step's kind (deploy.PlannedStep.Kind) to its Kind.
type Registry struct{ kinds map[string]Kind }

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{kinds: map[string]Kind{}} }

// Register adds a kind; registering a name twice is a programming error.
func (r *Registry) Register(name string, k Kind) {
	if _, ok := r.kinds[name]; ok {
		panic(fmt.Sprintf("steps: kind %q registered twice", name))
	}
	r.kinds[name] = k
}

// Lookup returns the kind of a planned step.
func (r *Registry) Lookup(p deploy.PlannedStep) (Kind, bool) {
	k, ok := r.kinds[p.Kind()]
	return k, ok
}

// Undoable reports whether the planned step's kind can be compensated.
func (r *Registry) Undoable(p deploy.PlannedStep) bool {
	k, ok := r.Lookup(p)
	if !ok {
		return false
	}
	_, ok = k.(Undoable)
	return ok
}

// Names lists the registered kinds, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.kinds))
	for n := range r.kinds {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Standard returns a registry of the standard steps.
func Standard() *Registry {
	r := NewRegistry()
	r.Register(deploy.StepConfig, configStep{})
	r.Register(deploy.StepSecrets, same{secretsStep{}})
	r.Register(deploy.StepArtifacts, same{artifactsStep{}})
	r.Register(deploy.StepQA, same{qaStep{}})
	r.Register(deploy.StepDeploy, deployStep)
	r.Register(deploy.StepPostTest, same{postTestStep{}})
	r.Register(deploy.StepActivation, activationStep)
	r.Register(deploy.StepCleanup, same{cleanupStep{}})
	return r
}

// runner is a kind that does the same in a dry run: it changes nothing on
// the targets either way.
type runner interface {
	Run(ctx context.Context, c *Context) (Result, error)
}

type same struct{ runner }

func (s same) DryRun(ctx context.Context, c *Context) (Result, error) { return s.Run(ctx, c) }

// WorkDir is the deploy's working directory on this worker.
func (c *Context) WorkDir() string {
	return filepath.Join(c.Env.Config.Server.WorkDir, c.Job.ID)
}

func (c *Context) artifactPath() string { return filepath.Join(c.WorkDir(), "artifact") }

func (c *Context) logf(level, format string, args ...any) {
	if c.Log != nil {
		c.Log(level, format, args...)
	}
}

func (c *Context) resolver() secrets.Resolver { return secrets.Resolver(c.Env.Secrets) }

// Secret resolves a logical secret name of the environment configuration:
// a permanent error when the configuration does not declare it or its
// provider says it is missing, a temporary one when it cannot be read now.
func (c *Context) Secret(ctx context.Context, name string) (string, error) {
	for _, s := range c.Effective.Secrets {
		if s.Name == name {
			return c.resolve(ctx, s)
		}
	}
	return "", deploy.Permanentf("secret %s is not declared by the environment configuration", name)
}

// resolve reads a secret of the environment configuration. Its readers
// learn which secret failed and for which step; where it is read from (a
// variable's or a file's name) is configuration they are not shown: the
// server log has it, for the operator who fixes it.
func (c *Context) resolve(ctx context.Context, s deploy.SecretRef) (string, error) {
	v, err := c.resolver().Resolve(ctx, s.Ref)
	if err == nil {
		return v, nil
	}
	if c.Env.Log != nil {
		c.Env.Log.Warn("a secret of the environment configuration cannot be resolved", "deployment", c.Job.ID,
			"step", c.Key.Name(), "secret", s.Name, "error", err)
	}
	if deploy.IsPermanent(err) {
		return "", deploy.Permanentf("a secret of the environment configuration is missing: %s, for step %s", s.Name, c.Key.Step)
	}
	return "", fmt.Errorf("a secret of the environment configuration cannot be read now: %s, for step %s", s.Name, c.Key.Step)
}
