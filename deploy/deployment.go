package deploy

import (
	"net"
	"strconv"
	"strings"
	"time"
)

// Artifact is what a deploy releases.
type Artifact struct {
	Type    string `json:"type"`
	Name    string `json:"name"`
	Version string `json:"version"`
	Source  string `json:"source"`
	// SHA256 pins the artifact when the descriptor gives it: the qa step
	// refuses any other content.
	SHA256 string `json:"sha256,omitempty"`
	// CreatedAt is when the artifact was built, when the descriptor says:
	// the lead time of the change starts there.
	CreatedAt *time.Time `json:"createdAt,omitempty"`
}

// Commit is the source change a descriptor deploys, as far as it says.
type Commit struct {
	// Time is when the change was committed: the lead time starts there,
	// before the artifact's time.
	Time *time.Time `json:"time,omitempty"`
}

// Target is one place a plugin deploys to: a directory for the local
// plugin, a host for SSH.
type Target struct {
	Host   string            `json:"host,omitempty"`
	Port   int               `json:"port,omitempty"`
	User   string            `json:"user,omitempty"`
	Path   string            `json:"path,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
}

// Name is how logs, outputs, the rollout plan and its status refer to a
// target, and what tells two targets apart: [user@]host[:port][:path].
// Two logins of one host, or one host on two ports, are two machines or
// two accounts, so they are two targets. A target without user or port
// keeps the name it always had (host, host:path or path); without a host,
// user and port address nothing and are left out.
func (t Target) Name() string {
	if t.Host == "" {
		return t.Path
	}
	name := t.Host
	if t.Port != 0 {
		host := strings.TrimSuffix(strings.TrimPrefix(t.Host, "["), "]")
		name = net.JoinHostPort(host, strconv.Itoa(t.Port))
	}
	if t.User != "" {
		name = t.User + "@" + name
	}
	if t.Path != "" {
		name += ":" + t.Path
	}
	return name
}

// Descriptor is a parsed and validated manent/v1 Deployment descriptor.
type Descriptor struct {
	APIVersion  string `json:"apiVersion"`
	Kind        string `json:"kind"`
	ID          string `json:"id,omitempty"`
	Tenant      string `json:"tenant,omitempty"`
	Application string `json:"application"`
	Environment string `json:"environment"`
	Description string `json:"description,omitempty"`
	// Labels are free key/values used by governance rules and lists.
	Labels   map[string]string `json:"labels,omitempty"`
	Artifact Artifact          `json:"artifact"`
	DryRun   bool              `json:"dryRun,omitempty"`
	Deploy   DeploySection     `json:"deploy,omitempty"`
	// Steps turns optional pipeline steps on or off.
	Steps map[string]bool `json:"steps,omitempty"`
	// StepParams sets step parameters where descriptor_policy.step_params allows it.
	StepParams map[string]map[string]string `json:"stepParams,omitempty"`
	// FreezeOverride asks to deploy during a freeze window; it needs
	// deployment.freeze-override and a reason.
	FreezeOverride *FreezeOverride `json:"freezeOverride,omitempty"`
	// After lists the deploys that must succeed first; AfterTimeout bounds the wait.
	After        []string      `json:"after,omitempty"`
	AfterTimeout time.Duration `json:"afterTimeout,omitempty"`
	Schedule     *Schedule     `json:"schedule,omitempty"`
	// Imports and Exports pass data along a chain.
	Imports map[string]Import     `json:"imports,omitempty"`
	Exports map[string]ExportSpec `json:"exports,omitempty"`
	// Rollback changes the environment's rollback policy, where the
	// descriptor policy allows it.
	Rollback *RollbackOverride `json:"rollback,omitempty"`
	// Rollout changes the environment's rollout, where the descriptor
	// policy allows it.
	Rollout *RolloutOverride `json:"rollout,omitempty"`
	// Commit is the change deployed, when the descriptor gives it.
	Commit *Commit `json:"commit,omitempty"`
	// Remediation flags the deploy as unplanned work fixing an earlier one:
	// it counts in the deployment rework rate and marks the deploy before
	// it as failed (DORA metrics).
	Remediation bool `json:"remediation,omitempty"`
	// Callbacks receive the deploy's events (docs/callbacks.md).
	Callbacks []Callback `json:"callbacks,omitempty"`
}

// ChangeTime is when the change this descriptor deploys was made: the
// commit's time, else the artifact's, nil when it gives neither.
func (d Descriptor) ChangeTime() *time.Time {
	if d.Commit != nil && d.Commit.Time != nil {
		return d.Commit.Time
	}
	return d.Artifact.CreatedAt
}

// FreezeOverride is the descriptor's request to deploy in a freeze.
type FreezeOverride struct {
	Reason string `json:"reason"`
}

// DeploySection is the descriptor's request to the plugin.
type DeploySection struct {
	Targets []Target          `json:"targets,omitempty"`
	Params  map[string]string `json:"params,omitempty"`
	// TargetsFrom and ParamsFrom take targets and parameters from imports.
	TargetsFrom []ImportRef          `json:"targetsFrom,omitempty"`
	ParamsFrom  map[string]ImportRef `json:"paramsFrom,omitempty"`
}

// HealthPlaceholders are the values a health check's URL may contain, as
// {{ .Version }}: the deploy's artifact version, application, environment
// and tenant.
var HealthPlaceholders = []string{"Version", "Application", "Environment", "Tenant"}

// HealthCheck is an HTTP endpoint the post-test step calls.
type HealthCheck struct {
	// URL may hold HealthPlaceholders, each filled percent-encoded.
	URL string `json:"url"`
	// ExpectStatus is the accepted status; 0 means any 2xx.
	ExpectStatus int           `json:"expect_status,omitempty"`
	Timeout      time.Duration `json:"timeout,omitempty"`
}

// SecretRef names a secret and says where to read it (env:NAME, file:/path).
type SecretRef struct {
	Name string `json:"name"`
	Ref  string `json:"ref"`
}

// SSHLogin names the secret an ssh deploy logs in with: exactly one of a
// private key and a password, by their names in the environment
// configuration's secrets (never their values, nor their references).
type SSHLogin struct {
	KeySecret      string `json:"key_secret,omitempty"`
	PasswordSecret string `json:"password_secret,omitempty"`
}

// Clone returns a copy of l (nil for nil).
func (l *SSHLogin) Clone() *SSHLogin {
	if l == nil {
		return nil
	}
	c := *l
	return &c
}

// Effective is the deploy as it will run: the descriptor merged with the
// environment configuration under the descriptor policy.
type Effective struct {
	Tenant      string                       `json:"tenant"`
	Application string                       `json:"application"`
	Environment string                       `json:"environment"`
	Artifact    Artifact                     `json:"artifact"`
	Plugin      string                       `json:"plugin"`
	Targets     []Target                     `json:"targets"`
	Params      map[string]string            `json:"params,omitempty"`
	StepParams  map[string]map[string]string `json:"step_params,omitempty"`
	Secrets     []SecretRef                  `json:"secrets,omitempty"`
	// SSH is the login of the ssh plugin's targets (the environment
	// configuration's ssh section); nil for other plugins.
	SSH    *SSHLogin         `json:"ssh,omitempty"`
	Health []HealthCheck     `json:"health,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
	DryRun bool              `json:"dry_run,omitempty"`
	// Rollback is the automatic rollback policy decided for the deploy.
	Rollback RollbackPolicy `json:"rollback"`
	// Rollout is how the targets are rolled out, defaults applied; nil is
	// one pass over every target at once.
	Rollout *RolloutSpec `json:"rollout,omitempty"`
	// RolloutPlan is the plan of Rollout the config step made from the
	// configuration valid when the deploy ran: the passes and batches the
	// engine runs, and the status shows. Nil at submission (the plan of
	// validate is Plan.Rollout) and for a deploy without rollout.
	RolloutPlan *RolloutPlan `json:"rollout_plan,omitempty"`
	// ConfigSource and ConfigRevision record which environment configuration
	// was used: its file and the SHA-256 of its content.
	ConfigSource   string `json:"config_source,omitempty"`
	ConfigRevision string `json:"config_revision,omitempty"`
}

// Partition is the deploy queue partition of the deploy: one deploy at a
// time per tenant, application and environment.
func (e Effective) Partition() string {
	return e.Tenant + "/" + e.Application + "/" + e.Environment
}

// Standard step names.
const (
	StepConfig     = "config"
	StepSecrets    = "secrets"
	StepArtifacts  = "artifacts"
	StepQA         = "qa"
	StepDeploy     = "deploy"
	StepPostTest   = "post-test"
	StepActivation = "activation"
	StepCleanup    = "cleanup"
)

// PlannedStep is one step of the plan.
type PlannedStep struct {
	Name string `json:"name"`
	// Type is "standard" for the built-in steps; custom steps bring theirs.
	Type       string        `json:"type"`
	MaxRetries int           `json:"max_retries"`
	Timeout    time.Duration `json:"timeout"`
	// Mandatory steps cannot be turned off by a descriptor.
	Mandatory bool `json:"mandatory"`
	// Spec is a custom step's specification as the plan captured it; only
	// the worker reads it: what the API, validate and the web show of a
	// custom step is its type and SpecHash, never commands or URLs.
	Spec *CustomSpec `json:"spec,omitempty"`
	// SpecHash is the SHA-256 of Spec's canonical form, in hex.
	SpecHash string `json:"spec_hash,omitempty"`
	// Signature is the HMAC-SHA256 of Spec's canonical form under the first
	// of pipeline.custom.spec_key_refs, when keys are configured.
	Signature string `json:"signature,omitempty"`
}

// Plan is the ordered list of steps computed at submission and stored as the
// workflow input, so a resumed deploy runs what it was planned with.
type Plan struct {
	Steps []PlannedStep `json:"steps"`
	// Rollout is the rollout planned at submission for a deploy with one:
	// what validate shows. The config step plans again from the effective
	// deploy it merges.
	Rollout *RolloutPlan `json:"rollout,omitempty"`
	// Signature is the HMAC-SHA256, under the first of
	// pipeline.custom.spec_key_refs, of what the plan runs as: its deploy
	// (or the schedule whose ticks run it) and its steps in order, with
	// their types, mandatory flags and spec hashes. It is set on the plan
	// of the workflow's input only, when keys are configured.
	Signature string `json:"signature,omitempty"`
}

// Names returns the step names in order.
func (p Plan) Names() []string {
	names := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		names[i] = s.Name
	}
	return names
}

// Decision is what governance decided at submission; saved with the request.
type Decision struct {
	// Rule names the rules that matched, empty when none did.
	Rule string `json:"rule,omitempty"`
	// Requires lists what the deploy must wait for (approvals, change ticket).
	Requires []string `json:"requires,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	// Approvals is set when the deploy waits for approvals.
	Approvals *ApprovalRequirement `json:"approvals,omitempty"`
	// Change is set when a change ticket is required.
	Change *ChangeRequirement `json:"change,omitempty"`
	// Freeze is set when the deploy was accepted in a freeze with an override.
	Freeze *Freeze `json:"freeze,omitempty"`
	// Promotion is set when a mandatory promotion was checked.
	Promotion *PromotionCheck `json:"promotion,omitempty"`
}

// Deployment is the read model of one deploy.
type Deployment struct {
	ID          string
	Tenant      string
	Application string
	Environment string
	State       State
	Requester   string
	// RequesterGroups are the requester's groups at submission: with the
	// descriptor, the effective deploy and the signed plan, the job a wait
	// lets go (Job).
	RequesterGroups []string
	CreatedAt       time.Time
	StartedAt       *time.Time
	FinishedAt      *time.Time
	UpdatedAt       time.Time
	DryRun          bool
	Release         string
	// RollbackOf is the deploy a rollback deploy undoes (a manual rollback
	// or one of a release), Schedule the recurring schedule whose tick
	// started the deploy: with Release, what it was created for (Derived).
	RollbackOf string
	Schedule   string
	// PromotedFrom is the deploy a promotion (or a redeploy) was made from.
	PromotedFrom string
	Artifact     Artifact
	// SHA256 is the digest of the artifact actually downloaded.
	SHA256     string
	Descriptor Descriptor
	Effective  Effective
	Plan       Plan
	Decision   Decision
	// CurrentStep is the step running now, empty otherwise.
	CurrentStep string
	Error       string
	// Rollback is the outcome of the automatic rollback (RollbackCompleted,
	// ...), "" until the deploy ends or compensates.
	Rollback string
	// CancelRequested is set when a cancel reached a running deploy: it
	// stops at the start of its next step.
	CancelRequested bool
	// CancelledBy is the identity whose cancel request came first, and
	// CancelledFrom the state that request found the deploy in. A request
	// may come too late (the deploy ends otherwise): show Canceller.
	CancelledBy   string
	CancelledFrom State
	// RolloutRequest is what a person asked of the deploy's rollout that
	// its workflow has not taken yet; nil for none.
	RolloutRequest *RolloutRequest
	// RolloutMayResume are who may resume or abort the rollout (roles,
	// groups, identities), as the service read them from the policy for a
	// deploy whose rollout goes on; the status shows them while it is
	// paused.
	RolloutMayResume []string
	Steps            []Step
	// Approvals are the answers given so far (when the deploy needs them),
	// and ApprovalExpiresAt when the wait for them ends.
	Approvals         []Approval
	ApprovalExpiresAt *time.Time
	// WaveApprovals are the answers to the approvals the rollout asks
	// before its waves (Pass set), in the order given.
	WaveApprovals []Approval
	// Dependencies are the deploys of after with their states now, and
	// AfterExpiresAt when the wait for them ends.
	Dependencies   []Dependency
	AfterExpiresAt *time.Time
	// Exports are the checked exports of a succeeded deploy.
	Exports []Export
	// Dependents are the deploys that wait (or waited) on this one, with
	// their states: read by the service for its callers, not by Store.Get.
	Dependents []Dependency
	// Deliveries are the deliveries of the events of the deploy to its
	// callbacks, read by Store.Get when the descriptor has callbacks
	// (empty, not nil, when there are none yet); nil when not read.
	Deliveries []Delivery
}

// Resource is the tenant, application and environment the descriptor deploys to.
func (d *Descriptor) Resource() Resource {
	return Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
}

// Resource is what permissions on the deploy are checked on.
func (d *Deployment) Resource() Resource {
	return Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
}

// Step is the record of one operation of a deploy (see StepKey): a step of
// the plan, or its checkpoint or compensation, in a pass and batch.
type Step struct {
	DeploymentID string
	// Name is the planned step's (deploy, activation, change:open).
	Name     string
	Pass     int
	Batch    int
	Target   string
	Kind     StepKind
	Position int
	Type     string
	State    StepState
	Attempts int
	// Runs counts the processes that started the operation: more than one
	// means a worker stopped while it ran (see MAX_RECOVERY_ATTEMPTS_EXCEEDED).
	Runs       int
	StartedAt  *time.Time
	FinishedAt *time.Time
	Output     map[string]string
	Error      string
}

// LogLine is one line of a deploy's log.
type LogLine struct {
	DeploymentID string
	Seq          int64
	Time         time.Time
	Step         string
	Level        string
	Message      string
}

// InventoryEntry is the release in service of an application in an environment.
type InventoryEntry struct {
	Tenant       string
	Application  string
	Environment  string
	DeploymentID string
	Artifact     Artifact
	SHA256       string
	DeployedAt   time.Time
	DeployedBy   string
	// Previous is the release in service before this one that succeeded,
	// nil when none did (or nothing is in service): what a rollback goes
	// back to by default.
	Previous *PreviousRelease
	// LastFailure is the last deploy of the environment that failed, if
	// any; an entry with a failure and no deploy in service has an empty
	// DeploymentID.
	LastFailure *LastFailure
}

// PreviousRelease is the release that was in service in an environment
// before the current one: the deploy that last went in service there
// before it and ended SUCCESS (a deploy that failed after its activation,
// left in service, is skipped: nothing to go back to), what a rollback
// goes back to.
type PreviousRelease struct {
	DeploymentID string
	Artifact     Artifact
	SHA256       string
	DeployedAt   time.Time
	DeployedBy   string
}

// AuditEntry is one append-only audit record.
type AuditEntry struct {
	ID      int64
	Time    time.Time
	Actor   string
	Action  string
	Target  string
	Details map[string]any
	// Resources are what the target is about, read with the entry: the
	// deploy's, the schedule's, every deploy of a release; none for an
	// entry about nothing of an environment (then only global
	// administrators read it).
	Resources []Resource
}

// Canceller is who cancelled d: the identity whose cancel request came
// first, once d ended CANCELLED; "" otherwise, also while the request waits
// for the next step and when it came too late to stop anything.
func (d *Deployment) Canceller() string {
	if d.State != StateCancelled {
		return ""
	}
	return d.CancelledBy
}
