package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/yamltree"
)

// MaxFileBytes bounds manent.yml and every environment configuration file.
const MaxFileBytes = 1 << 20

// Config is manent.yml. Load and Parse return it with defaults applied and
// every path absolute.
type Config struct {
	// Path is the file the configuration was loaded from ("" from Parse);
	// Dir is its directory, against which relative paths are resolved.
	Path string `yaml:"-"`
	Dir  string `yaml:"-"`

	Server    Server           `yaml:"server"`
	Database  Database         `yaml:"database"`
	Auth      Auth             `yaml:"auth"`
	RBAC      RBAC             `yaml:"rbac"`
	EnvConfig EnvConfigSection `yaml:"envconfig"`
	Artifacts Artifacts        `yaml:"artifacts"`
	Pipeline  Pipeline         `yaml:"pipeline"`
	Queues    Queues           `yaml:"queues"`
	Engine    Engine           `yaml:"engine"`
	Secrets   Secrets          `yaml:"secrets"`
	// Governance: see docs/governance.md.
	Governance Governance `yaml:"governance"`
	// Chains: how deploys waiting on others look again (docs/chains.md).
	Chains Chains `yaml:"chains"`
	// Plugins: what the plugins need beyond the environment
	// configurations (docs/ssh.md).
	Plugins Plugins `yaml:"plugins"`
	// Retention: how long finished deploys, log lines, audit entries and
	// the facts of the DORA metrics are kept (docs/manent-yml.md).
	Retention Retention `yaml:"retention"`
	// Notifications: chat messages about deploys and approvals answered
	// from the chat (docs/chat.md).
	Notifications Notifications `yaml:"notifications"`
	// Callbacks: where descriptors' callbacks may point and how their
	// deliveries are signed and retried (docs/callbacks.md).
	Callbacks Callbacks `yaml:"callbacks"`
}

// Retention is how long manent keeps what it records; a daily job removes
// what is older. The release in service, the one before it and the last
// failure of each environment are kept whatever their age.
type Retention struct {
	Deployments yamltree.Days `yaml:"deployments"`
	Logs        yamltree.Days `yaml:"logs"`
	Audit       yamltree.Days `yaml:"audit"`
	// Dora: how long the facts the DORA metrics read of each finished
	// deploy are kept; they outlive the deploys (docs/dora.md).
	Dora yamltree.Days `yaml:"dora"`
}

// Retention defaults and floors: the floors keep a typo (1h for 1d) from
// erasing the recent history, and the audit's matches the database's own
// floor in manent.audit_expire.
const (
	DefaultRetentionDeployments = yamltree.Days(90 * 24 * time.Hour)
	DefaultRetentionLogs        = yamltree.Days(30 * 24 * time.Hour)
	DefaultRetentionAudit       = yamltree.Days(400 * 24 * time.Hour)
	MinRetentionDeployments     = yamltree.Days(24 * time.Hour)
	MinRetentionLogs            = yamltree.Days(24 * time.Hour)
	MinRetentionAudit           = yamltree.Days(30 * 24 * time.Hour)
	DefaultRetentionDora        = yamltree.Days(730 * 24 * time.Hour)
	// MinRetentionDora covers the longest range the DORA metrics show (53
	// weeks), with the week before it and the longest failure window.
	MinRetentionDora = yamltree.Days(400 * 24 * time.Hour)
)

// Roles a process can serve.
const (
	RoleAll    = "all"
	RoleAPI    = "api"
	RoleWorker = "worker"
)

// Server is the process's own settings.
type Server struct {
	Listen    string `yaml:"listen"`
	PublicURL string `yaml:"public_url"`
	// ExecutorID must be stable across restarts: DBOS recovers at launch
	// only the workflows of its own executor.
	ExecutorID    string `yaml:"executor_id"`
	Role          string `yaml:"role"`
	DefaultTenant string `yaml:"default_tenant"`
	// WorkDir holds the deploys' working directories; left empty, it is
	// the installation's own, under its data directory (see UseDataDir).
	WorkDir string `yaml:"work_dir"`
	// Introspection is who may read the GraphQL schema: one of the
	// Introspection* values, empty for the default. Read it with
	// IntrospectionPolicy, which also reads AllowIntrospection.
	Introspection string `yaml:"introspection"`
	// AllowIntrospection is the former form of Introspection, still read:
	// true is IntrospectionAll, false IntrospectionNone.
	AllowIntrospection *bool `yaml:"allow_introspection"`
	// Metrics says who may read /metrics.
	Metrics Metrics `yaml:"metrics"`
}

// Metrics is server.metrics: the scrape credential of /metrics.
type Metrics struct {
	// TokenSHA256 is the hex SHA-256 of the bearer token Prometheus sends:
	// a credential that reads the metrics and nothing else, so it may live
	// in the scraper's configuration. Empty: only admins (api and all
	// roles) may read them.
	TokenSHA256 string `yaml:"token_sha256"`
}

// Who may read the GraphQL schema (server.introspection). Any answer is
// under the operation limits; the schema is no secret, but an
// introspection is the largest answer the API can give.
const (
	// IntrospectionAdmins, the default: the identities that hold admin on
	// every application and environment of the default tenant.
	IntrospectionAdmins = "admins"
	// IntrospectionAll: every authenticated identity.
	IntrospectionAll = "all"
	// IntrospectionNone: no one.
	IntrospectionNone = "none"
)

// IntrospectionPolicy returns who may read the GraphQL schema.
func (s Server) IntrospectionPolicy() string {
	switch {
	case s.Introspection != "":
		return s.Introspection
	case s.AllowIntrospection == nil:
		return IntrospectionAdmins
	case *s.AllowIntrospection:
		return IntrospectionAll
	}
	return IntrospectionNone
}

// Database says where PostgreSQL is; DATABASE_URL overrides it in Load.
type Database struct {
	URL string `yaml:"url"`
	// MaxConnections bounds the connections this process opens to
	// PostgreSQL besides its listeners: every process has its own, so an
	// installation of N processes opens up to N times as many, and a
	// database with few cores spends its CPU on contention between them.
	MaxConnections int `yaml:"max_connections"`
}

// Pools splits MaxConnections between the process's two pools: DBOS's
// (workflows, steps and the read-model writes of the steps) and the read
// model's (the APIs, the logs, the heartbeats).
func (d Database) Pools() (dbos, manent int) {
	dbos = (d.MaxConnections + 1) / 2
	return dbos, d.MaxConnections - dbos
}

// Auth holds the static bearer tokens and the OIDC provider (nil: none).
type Auth struct {
	Tokens []Token `yaml:"tokens"`
	OIDC   *OIDC   `yaml:"oidc"`
	// AllowTokenSignIn lets the sign-in page of the web interface take a
	// static token, checked by the server, which opens a session like the
	// OIDC sign-in (the demo's); off, tokens are for the API and the CLI.
	AllowTokenSignIn bool    `yaml:"allow_token_sign_in"`
	Session          Session `yaml:"session"`
}

// Session is auth.session: how long a browser session lasts. TTL is
// absolute (from the sign-in); IdleTimeout ends a session not used for
// that long.
type Session struct {
	TTL         time.Duration `yaml:"ttl"`
	IdleTimeout time.Duration `yaml:"idle_timeout"`
}

// Session defaults.
const (
	DefaultSessionTTL         = 12 * time.Hour
	DefaultSessionIdleTimeout = 2 * time.Hour
)

// Token is a static bearer token, stored as the hex SHA-256 of its value.
// Its identity is token:<Name>.
type Token struct {
	Name   string   `yaml:"name"`
	SHA256 string   `yaml:"sha256"`
	Groups []string `yaml:"groups"`
}

// RBAC is the Casbin model and policy; an empty Model means the built-in one.
type RBAC struct {
	Model  string `yaml:"model"`
	Policy string `yaml:"policy"`
}

// EnvConfigSection says where the environment configurations live:
// <Dir>/<tenant>/<application>/<environment>.yml.
type EnvConfigSection struct {
	Dir string `yaml:"dir"`
}

// Artifacts limits where artifacts may come from.
type Artifacts struct {
	// Sources are prefixes matched against the source as written; an empty
	// list allows no source at all.
	Sources []string `yaml:"sources"`
	// FileRoot is the directory file: sources resolve against and must stay
	// inside; without it file: sources cannot be used.
	FileRoot string `yaml:"file_root"`
	// MaxSize is in bytes; manent.yml may write it as 512MiB or 1GiB.
	MaxSize int64 `yaml:"max_size,bytes"`
	// MaxEntries and MaxUnpackedSize bound what an artifact unpacks to on a
	// target: a small archive of many directories, or of a file of zeros,
	// would otherwise fill its inodes or its disk.
	MaxEntries      int   `yaml:"max_entries"`
	MaxUnpackedSize int64 `yaml:"max_unpacked_size,bytes"`
}

// ArchiveLimits are the limits of the artifacts.* section, as the steps
// hand them to a plugin.
func (a Artifacts) ArchiveLimits() deploy.ArchiveLimits {
	return deploy.ArchiveLimits{MaxEntries: a.MaxEntries, MaxBytes: a.MaxUnpackedSize}
}

// Pipeline is the steps every deploy runs and what descriptors may change.
type Pipeline struct {
	Steps []StepConfig `yaml:"steps"`
	// RetryInterval is the first wait before a retry; it doubles at every
	// retry up to RetryMaxInterval.
	RetryInterval    time.Duration    `yaml:"retry_interval"`
	RetryMaxInterval time.Duration    `yaml:"retry_max_interval"`
	DescriptorPolicy DescriptorPolicy `yaml:"descriptor_policy"`
	// Custom is what every custom step shares: the keys that sign their
	// specifications, the revoked ones, the SSH and HTTP rules.
	Custom Custom `yaml:"custom"`
}

// Step modes: a descriptor may turn an optional step on or off, never a
// mandatory one.
const (
	ModeMandatory = "mandatory"
	ModeOptional  = "optional"
)

// StepConfig is one entry of pipeline.steps: a standard step, or a custom
// one when Type is set (the keys after Type are custom steps' only).
type StepConfig struct {
	Name       string        `yaml:"name"`
	Mode       string        `yaml:"mode"`
	Enabled    bool          `yaml:"enabled"`
	MaxRetries int           `yaml:"max_retries"`
	Timeout    time.Duration `yaml:"timeout"`

	// Type is deploy.StepTypeHTTP or deploy.StepTypeCommand.
	Type    string                  `yaml:"type"`
	Secrets []string                `yaml:"secrets"`
	Params  map[string]ParamConfig  `yaml:"params"`
	Outputs map[string]OutputConfig `yaml:"outputs"`
	SSH     *StepSSHConfig          `yaml:"ssh"`
	Run     *RunConfig              `yaml:"run"`
	DryRun  *RunConfig              `yaml:"dry_run"`
}

// Step defaults.
const (
	DefaultMaxRetries  = 2
	DefaultStepTimeout = 10 * time.Minute
)

// SetDefaults gives a step listed in manent.yml the defaults of absent keys.
func (s *StepConfig) SetDefaults() {
	s.Enabled = true
	s.MaxRetries = DefaultMaxRetries
	s.Timeout = DefaultStepTimeout
}

// Mandatory reports whether descriptors may not turn the step off.
func (s StepConfig) Mandatory() bool { return s.Mode == ModeMandatory }

// DescriptorPolicy says what a descriptor may set beside the environment
// configuration.
type DescriptorPolicy struct {
	// Targets allows descriptors to give targets.
	Targets bool `yaml:"targets"`
	// Params lists the parameters a descriptor may set; "*" allows all.
	Params []string `yaml:"params"`
	// StepParams lists, per step, the parameters a descriptor may set.
	StepParams map[string][]string `yaml:"step_params"`
	// Rollback allows a descriptor's rollback to replace the automatic
	// rollback policy of its environment configuration. Off by default:
	// whether a failed deploy is undone is the platform's decision.
	Rollback bool `yaml:"rollback"`
	// Rollout is what a descriptor's rollout may change: one of the
	// RolloutPolicy* values, "" for RolloutPolicyNone.
	Rollout string `yaml:"rollout"`
	// GateURLs are the prefixes of the URLs a descriptor's gates may call
	// besides its targets: the worker calls them from inside the network.
	GateURLs []string `yaml:"gate_urls"`
}

// What descriptor_policy.rollout lets a descriptor change.
const (
	// RolloutPolicyNone, the default: nothing; how a fleet is rolled out
	// is the platform's decision.
	RolloutPolicyNone = "none"
	// RolloutPolicyPacing: only toward more caution, bake longer, tolerate
	// fewer failures, smaller batches, an approval more; never which
	// targets go in which wave, the gates or the policies.
	RolloutPolicyPacing = "pacing"
	// RolloutPolicyAll: any key, each given replacing the environment's,
	// except the environment's rule and exclude, which always stand.
	RolloutPolicyAll = "all"
)

// Queues tunes the deploy queue.
type Queues struct {
	// PollInterval is how often DBOS polls its queues: it caps throughput
	// and delays every start by up to its value.
	PollInterval time.Duration `yaml:"poll_interval"`
	// EventPollInterval is how often the queues of the events (their
	// snapshots, callbacks and chat messages) and of the waits are polled:
	// each poll costs the database a transaction whether or not there is
	// work, and an event's delivery may wait this long twice without anyone
	// waiting on it; a wait's start too (its wake-ups are messages).
	EventPollInterval time.Duration `yaml:"event_poll_interval"`
	WorkerConcurrency int           `yaml:"worker_concurrency"`
	// Environments sets the concurrency of "tenant/application/environment"
	// partitions; others run one deploy at a time.
	Environments map[string]int `yaml:"environments"`
}

// Concurrency returns how many deploys of a partition may run at once.
func (q Queues) Concurrency(partition string) int {
	if n, ok := q.Environments[partition]; ok {
		return n
	}
	return 1
}

// Engine configures DBOS.
type Engine struct {
	// ApplicationVersion is pinned because DBOS's default, a hash of the
	// binary, would strand the deploys in flight after every rebuild.
	ApplicationVersion  string `yaml:"application_version"`
	MaxRecoveryAttempts int    `yaml:"max_recovery_attempts"`
	// HeartbeatInterval is how often a worker records that it is alive.
	HeartbeatInterval time.Duration `yaml:"heartbeat_interval"`
	// ExecutorTimeout is how long a worker may stay silent before another
	// one takes over its deploys.
	ExecutorTimeout time.Duration `yaml:"executor_timeout"`
	// AutoRecover makes workers take over the deploys of dead workers; off,
	// only `manent-server admin recover` does.
	AutoRecover *bool `yaml:"auto_recover"`
	// GatesTimeLimit bounds the check of a wave's gates as a whole (each
	// request has its own timeout, but an HTTP gate calls every target of
	// the wave): past it the checks not done are inconclusive.
	GatesTimeLimit time.Duration `yaml:"gates_time_limit"`
	// RolloutLookInterval is how long a rollout that waits (a bake, a
	// pause, a wave's approval, a deferral) sleeps at most before it reads
	// its deploy again by itself. Every request wakes it at once; this is
	// the safety net for one stored without its wake-up (a server of an
	// earlier version, a hand-made change), and every look costs DBOS
	// three recorded steps.
	RolloutLookInterval time.Duration `yaml:"rollout_look_interval"`
}

// AutoRecovering reports whether workers take over dead workers' deploys.
func (e Engine) AutoRecovering() bool { return e.AutoRecover == nil || *e.AutoRecover }

// Chains configures the waits of deploy chains.
type Chains struct {
	// PollInterval is how often each worker looks, in one query, for the
	// deploys waiting on others whose wake-up was lost (the sweeper), and
	// the first interval of a release's safety poll, which doubles up to
	// 5 minutes (default 5s).
	PollInterval time.Duration `yaml:"poll_interval"`
}

// Secrets limits what secret references may read.
type Secrets struct {
	// FileRoot is the directory file: references must stay inside.
	FileRoot string `yaml:"file_root"`
	// EnvPrefix is the prefix of the only environment variables env:
	// references may read, so a reference cannot read DATABASE_URL.
	EnvPrefix string `yaml:"env_prefix"`
}

// Error lists every problem of a configuration file, each with its path.
type Error struct {
	File   string
	Fields []deploy.FieldError
}

func (e *Error) Error() string {
	var b strings.Builder
	name := e.File
	if name == "" {
		name = "configuration"
	}
	fmt.Fprintf(&b, "%s: %d problem(s)", name, len(e.Fields))
	for _, f := range e.Fields {
		b.WriteString("\n  ")
		b.WriteString(f.String())
	}
	return b.String()
}

// DefaultMaxConnections is database.max_connections's default: 20 for
// each pool.
const DefaultMaxConnections = 40

// MinMaxConnections leaves each pool two connections: one for a
// transaction, one for what runs beside it (a poll, a heartbeat).
const MinMaxConnections = 4

// Defaults returns the configuration of an empty manent.yml in dir.
func Defaults(dir string) *Config {
	return &Config{
		Dir: dir,
		Server: Server{
			Listen: "127.0.0.1:8080", ExecutorID: "local", Role: RoleAll, DefaultTenant: "default",
		},
		Database:  Database{MaxConnections: DefaultMaxConnections},
		EnvConfig: EnvConfigSection{Dir: "envconfig"},
		Artifacts: Artifacts{MaxSize: 1 << 30, MaxEntries: deploy.DefaultMaxEntries,
			MaxUnpackedSize: deploy.DefaultMaxUnpackedBytes},
		Pipeline: Pipeline{
			Steps:            DefaultSteps(),
			RetryInterval:    time.Second,
			RetryMaxInterval: time.Minute,
			DescriptorPolicy: DescriptorPolicy{Targets: true},
			Custom:           Custom{KnownHosts: DefaultSSHKnownHosts, SecretsDir: DefaultSecretsDir},
		},
		Queues: Queues{PollInterval: 50 * time.Millisecond, EventPollInterval: 250 * time.Millisecond, WorkerConcurrency: 16},
		Engine: Engine{ApplicationVersion: "manent-2", MaxRecoveryAttempts: 20,
			HeartbeatInterval: 5 * time.Second, ExecutorTimeout: time.Minute,
			GatesTimeLimit: deploy.DefaultGatesTimeLimit, RolloutLookInterval: deploy.DefaultRolloutLookInterval},
		Chains:  Chains{PollInterval: 5 * time.Second},
		Secrets: Secrets{FileRoot: dir, EnvPrefix: "MANENT_SECRET_"},
		Auth:    Auth{Session: Session{TTL: DefaultSessionTTL, IdleTimeout: DefaultSessionIdleTimeout}},
		Plugins: Plugins{SSH: defaultSSHPlugin()},
		Retention: Retention{Deployments: DefaultRetentionDeployments, Logs: DefaultRetentionLogs,
			Audit: DefaultRetentionAudit, Dora: DefaultRetentionDora},
		Callbacks: Callbacks{RetryWindow: DefaultCallbackRetryWindow, Timeout: DefaultCallbackTimeout,
			FirstRetry: DefaultCallbackFirstRetry, Concurrency: DefaultCallbackConcurrency},
	}
}

// DefaultSteps is the pipeline when manent.yml lists none.
func DefaultSteps() []StepConfig {
	step := func(name, mode string) StepConfig {
		s := StepConfig{Name: name, Mode: mode}
		s.SetDefaults()
		return s
	}
	return []StepConfig{
		step(deploy.StepSecrets, ModeMandatory),
		step(deploy.StepArtifacts, ModeMandatory),
		step(deploy.StepQA, ModeMandatory),
		step(deploy.StepDeploy, ModeMandatory),
		step(deploy.StepPostTest, ModeOptional),
		step(deploy.StepActivation, ModeOptional),
	}
}

// Load reads manent.yml at path. DATABASE_URL, when set, overrides
// database.url.
func Load(path string) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	data, err := readFile(abs)
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	c, err := Parse(data, filepath.Dir(abs))
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			ce.File = abs
		}
		return nil, err
	}
	c.Path = abs
	if u := os.Getenv("DATABASE_URL"); u != "" {
		c.Database.URL = u
	}
	return c, nil
}

// Parse reads manent.yml from data; relative paths resolve against dir.
// Every problem (unknown key, wrong type, bad value) is reported in one *Error.
func Parse(data []byte, dir string) (*Config, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("parse config: %w", err)
	}
	root, fields := yamltree.Parse(data, MaxFileBytes)
	if fields != nil {
		return nil, &Error{Fields: fields}
	}
	c := Defaults(abs)
	var errs yamltree.Errors
	if root != nil {
		if root.Kind != yaml.MappingNode {
			return nil, &Error{Fields: []deploy.FieldError{{Message: "manent.yml must be a mapping of sections (server, database, auth, ...)"}}}
		}
		yamltree.Decode(root, "", c, &errs)
	}
	c.validate(&errs)
	if errs.Len() > 0 {
		return nil, &Error{Fields: errs.List()}
	}
	c.resolvePaths()
	return c, nil
}

// readFile reads at most MaxFileBytes+1 so that an oversized file is
// reported by the parser instead of filling memory.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only: a failed close loses nothing
	return io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
}

// resolve makes p absolute against the directory of manent.yml.
func (c *Config) resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir, p)
}

// UseDataDir gives what manent.yml leaves to the installation a place
// under dataDir, the directory the server keeps its own files in: the
// working directories of deploys go to <dataDir>/work unless
// server.work_dir says otherwise, so two servers on one host never share
// them. It returns whether it chose the working directory.
func (c *Config) UseDataDir(dataDir string) (bool, error) {
	if c.Server.WorkDir != "" {
		return false, nil
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return false, fmt.Errorf("data directory: %w", err)
	}
	c.Server.WorkDir = filepath.Join(abs, "work")
	return true, nil
}

func (c *Config) resolvePaths() {
	c.Server.WorkDir = c.resolve(c.Server.WorkDir)
	c.EnvConfig.Dir = c.resolve(c.EnvConfig.Dir)
	c.Artifacts.FileRoot = c.resolve(c.Artifacts.FileRoot)
	c.Secrets.FileRoot = c.resolve(c.Secrets.FileRoot)
	c.Governance.Rego = c.resolve(c.Governance.Rego)
	c.Plugins.SSH.KnownHosts = c.resolveHome(c.Plugins.SSH.KnownHosts)
	c.Pipeline.Custom.KnownHosts = c.resolveHome(c.Pipeline.Custom.KnownHosts)
	c.Pipeline.Custom.CAFile = c.resolve(c.Pipeline.Custom.CAFile)
}
