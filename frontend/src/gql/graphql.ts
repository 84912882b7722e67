/* eslint-disable */
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type Maybe<T> = T | null;
export type InputMaybe<T> = T | null | undefined;
export type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
export type MakeOptional<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]?: Maybe<T[SubKey]> };
export type MakeMaybe<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]: Maybe<T[SubKey]> };
export type MakeEmpty<T extends { [key: string]: unknown }, K extends keyof T> = { [_ in K]?: never };
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  JSON: { input: unknown; output: unknown; }
  Time: { input: string; output: string; }
};

/** The after section: the deploys a deploy waits for before it runs. */
export type AfterStatus = {
  __typename?: 'AfterStatus';
  dependencies: Array<Dependency>;
  /** When the wait for the dependencies ends. */
  expiresAt: Maybe<Scalars['Time']['output']>;
  /** Why the wait failed, when it did. */
  reason: Maybe<Scalars['String']['output']>;
  /** waiting, satisfied, failed, or the state of a deploy that ended while it waited (cancelled; error when a worker abandoned it). */
  status: Scalars['String']['output'];
};

/** One identity's answer to a deploy awaiting approval. */
export type Approval = {
  __typename?: 'Approval';
  approved: Scalars['Boolean']['output'];
  comment: Scalars['String']['output'];
  identity: Scalars['String']['output'];
  time: Scalars['Time']['output'];
};

/** What an approver needs to decide: what is in service now against what is proposed, the evidence, the rule. */
export type ApprovalContext = {
  __typename?: 'ApprovalContext';
  approvers: Approvers;
  /** The decision in words: what the rule needs, and whether the promotion was satisfied. */
  explanation: Scalars['String']['output'];
  /** The release in service in the deploy's environment now; null when none. */
  inService: Maybe<InventoryEntry>;
  /** The deploys that satisfied the mandatory promotion. */
  promotionEvidence: Array<PromotionEvidence>;
  /** The artifact proposed. */
  proposed: Artifact;
  /** Its digest: the one pinned by the descriptor, else the one downloaded; null when not known yet. */
  proposedSha256: Maybe<Scalars['String']['output']>;
};

/** The approvals a deploy needs and those it got. */
export type ApprovalStatus = {
  __typename?: 'ApprovalStatus';
  approvals: Array<Approval>;
  /** When the wait for approvals ends (EXPIRED). */
  expiresAt: Maybe<Scalars['Time']['output']>;
  /** When set (with roles), approvers must belong to one of these groups or hold one of the roles. */
  groups: Array<Scalars['String']['output']>;
  /** How many more approvals it needs: 0 once approved, rejected, expired or ended. */
  remaining: Scalars['Int']['output'];
  /** How many distinct identities other than the requester must approve. */
  required: Scalars['Int']['output'];
  /** RBAC roles whose holders may approve (with groups: either will do). */
  roles: Array<Scalars['String']['output']>;
  /** waiting, approved, rejected, expired, or the final state (lower case) of a deploy that ended before its approvals. */
  status: Scalars['String']['output'];
};

/** Who may approve a deploy: the approval rule's restrictions and the RBAC holders of deployment.approve. */
export type Approvers = {
  __typename?: 'Approvers';
  /** The requester, who may never approve their own deploy. */
  excluded: Scalars['String']['output'];
  /** When set (with roles), approvers must be in one of these groups or hold one of the roles. */
  groups: Array<Scalars['String']['output']>;
  /** The subjects of the tenant's RBAC policy (roles, groups or identities) that hold deployment.approve on the environment. */
  holders: Array<Scalars['String']['output']>;
  /** Distinct identities other than the requester that must approve. */
  required: Scalars['Int']['output'];
  roles: Array<Scalars['String']['output']>;
};

export type Artifact = {
  __typename?: 'Artifact';
  name: Scalars['String']['output'];
  /** The digest pinned by the descriptor, if any. */
  pinnedSha256: Maybe<Scalars['String']['output']>;
  source: Scalars['String']['output'];
  type: Scalars['String']['output'];
  version: Scalars['String']['output'];
};

export type AuditConnection = {
  __typename?: 'AuditConnection';
  edges: Array<AuditEdge>;
  nodes: Array<AuditEntry>;
  pageInfo: PageInfo;
};

export type AuditEdge = {
  __typename?: 'AuditEdge';
  cursor: Scalars['String']['output'];
  node: AuditEntry;
};

/** One entry of the append-only audit log: who did what to which target, and its details (never a secret). */
export type AuditEntry = {
  __typename?: 'AuditEntry';
  /** What was done: deployment.submit, deployment.finish, deployment.approve, release.submit, schedule.create… */
  action: Scalars['String']['output'];
  /** The identity that acted: token:<name>, oidc:<user>, or system. */
  actor: Scalars['String']['output'];
  /** The outcome and the facts of the action, as recorded. */
  details: Scalars['JSON']['output'];
  id: Scalars['ID']['output'];
  /** The environments the target is about (every deploy of a release); empty for an entry about none. */
  resources: Array<AuditResource>;
  /** What it was done to: a deploy's ID, a release's ID, a schedule's name. */
  target: Scalars['String']['output'];
  time: Scalars['Time']['output'];
};

export type AuditFilter = {
  /** An action, or a prefix of actions ending in * (deployment.rollout.*). */
  action?: InputMaybe<Scalars['String']['input']>;
  /** The identity that acted, exactly. */
  actor?: InputMaybe<Scalars['String']['input']>;
  application?: InputMaybe<Scalars['String']['input']>;
  environment?: InputMaybe<Scalars['String']['input']>;
  /** Entries at or after this time. */
  since?: InputMaybe<Scalars['Time']['input']>;
  tenant?: InputMaybe<Scalars['String']['input']>;
  /** Entries before this time. */
  until?: InputMaybe<Scalars['Time']['input']>;
};

/** What an audit entry is about: a deploy's tenant, application and environment. */
export type AuditResource = {
  __typename?: 'AuditResource';
  application: Scalars['String']['output'];
  environment: Scalars['String']['output'];
  tenant: Scalars['String']['output'];
};

/** A callback of the deploy's descriptor and the deliveries of its events. */
export type Callback = {
  __typename?: 'Callback';
  deliveries: Array<CallbackDelivery>;
  /** The events it receives: started, step, finished. */
  events: Array<Scalars['String']['output']>;
  state: CallbackState;
  /** The URL without its query, fragment and user info. */
  url: Scalars['String']['output'];
};

/** One event sent to one callback. */
export type CallbackDelivery = {
  __typename?: 'CallbackDelivery';
  attempts: Scalars['Int']['output'];
  deliveredAt: Maybe<Scalars['Time']['output']>;
  /** started, step or finished. */
  event: Scalars['String']['output'];
  /** The webhook-id of every attempt and replay of it. */
  eventId: Scalars['String']['output'];
  id: Scalars['ID']['output'];
  /** Why the last attempt failed: the answer's status code and phrase, or a fixed phrase (never the URL's query, the answer's body, nor resolved addresses). */
  lastError: Maybe<Scalars['String']['output']>;
  /** The HTTP status of the last answer; null when none came. */
  lastStatus: Maybe<Scalars['Int']['output']>;
  nextAttemptAt: Maybe<Scalars['Time']['output']>;
  state: CallbackState;
  /** The step, for a step event. */
  step: Maybe<Scalars['String']['output']>;
};

/** Where the deliveries of a callback stand; a callback shows its worst delivery (DEAD > DISABLED > RETRYING > PENDING > DELIVERED). */
export type CallbackState =
  /** Not delivered within the retry window, or refused for good: replayCallbacks sends it again. */
  | 'DEAD'
  /** The receiver answered 2xx. */
  | 'DELIVERED'
  /** The receiver answered 410 Gone, to this delivery or to an earlier one of a deploy of the same tenant: nothing more is sent to that URL for any deploy of the tenant until a replay with includeDisabled. */
  | 'DISABLED'
  /** Recorded, not tried yet. */
  | 'PENDING'
  /** Tried and failed; tried again at nextAttemptAt. */
  | 'RETRYING';

/** One end of an after: a deploy another one runs after, or one that runs after another; with its state now. */
export type Dependency = {
  __typename?: 'Dependency';
  id: Scalars['ID']['output'];
  /** Null when the deploy no longer exists (removed by retention). */
  state: Maybe<DeploymentState>;
};

export type Deployment = {
  __typename?: 'Deployment';
  /** The after section; null when the deploy runs after no other. */
  after: Maybe<AfterStatus>;
  application: Scalars['String']['output'];
  /** The approval section; null when the deploy needs no approval. */
  approval: Maybe<ApprovalStatus>;
  /** The context of its approval; null when it needs none. */
  approvalContext: Maybe<ApprovalContext>;
  artifact: Artifact;
  /** The descriptor's callbacks with their deliveries; empty when it has none, and in lists (read the deploy itself). */
  callbacks: Array<Callback>;
  /** Whether the viewer may abort the rollout now: deployment.cancel, the deploy running with a wave left to pass, no abort asked, no wave failed, no rollback running. */
  canAbortRollout: Scalars['Boolean']['output'];
  /** Whether the viewer may approve or reject it now. */
  canApprove: Scalars['Boolean']['output'];
  /** Whether the viewer may cancel it now. */
  canCancel: Scalars['Boolean']['output'];
  /** Whether the viewer may pause the rollout now: deployment.cancel, the rollout running (or about to) with a batch left to start, no request pending, no wave failed, no rollback running. */
  canPauseRollout: Scalars['Boolean']['output'];
  /** Whether the viewer may promote it now to the environment to (the check promote runs before the submission's own). */
  canPromote: Scalars['Boolean']['output'];
  /** Whether the viewer may redeploy it now (it ended; deployment.submit, or deployment.dry-run for a dry run). */
  canRedeploy: Scalars['Boolean']['output'];
  /** Whether the viewer may resume the rollout now: deployment.cancel, the rollout paused. */
  canResumeRollout: Scalars['Boolean']['output'];
  /** Whether the viewer may roll its environment back to it now (deployment.rollback; it succeeded and is not in service). */
  canRollbackTo: Scalars['Boolean']['output'];
  cancelRequested: Scalars['Boolean']['output'];
  /** Who cancelled it (the first identity that asked), once it ended CANCELLED; null otherwise, also while a cancel request waits for the next step and when one came too late to stop it. */
  cancelledBy: Maybe<Scalars['String']['output']>;
  createdAt: Scalars['Time']['output'];
  currentStep: Maybe<Scalars['String']['output']>;
  decision: GovernanceDecision;
  /** The deploys whose after names this one (waiting, running or ended), oldest first; empty when none. */
  dependents: Array<Dependency>;
  dryRun: Scalars['Boolean']['output'];
  /** Duration in milliseconds from its start to its end, or so far while it runs; null before it starts. */
  durationMs: Maybe<Scalars['Int']['output']>;
  effective: EffectiveDeploy;
  environment: Scalars['String']['output'];
  error: Maybe<Scalars['String']['output']>;
  /** The exports, sorted by name; empty until the deploy succeeds, and always for a dry run. */
  exports: Array<Export>;
  finishedAt: Maybe<Scalars['Time']['output']>;
  id: Scalars['ID']['output'];
  /** The imports of the descriptor, sorted by name; empty when it imports nothing. */
  imports: Array<DeploymentImport>;
  labels: Array<KeyValue>;
  logs: LogConnection;
  /** The composite release it belongs to; null when none (or when the viewer may not read all of it). */
  memberOf: Maybe<Release>;
  plan: Plan;
  /** The deploy this one was promoted or redeployed from (its artifact and descriptor); null otherwise. */
  promotedFrom: Maybe<Scalars['ID']['output']>;
  /**
   * The environments the viewer may promote it to now: the next ones of the promotion order (the governance's
   * promotion rules whose from is its environment) where the viewer holds deployment.submit; empty unless it
   * succeeded. The promotion's own checks (freeze, approvals, mandatory promotion) apply when it is submitted.
   */
  promotionTargets: Array<Scalars['String']['output']>;
  release: Maybe<Scalars['String']['output']>;
  requester: Scalars['String']['output'];
  /** The automatic rollback; null until it is decided (the deploy ends or starts compensating). */
  rollback: Maybe<Rollback>;
  /** Where the rollout stands; null for a deploy without rollout. Pushed with every event of deploymentEvents. */
  rollout: Maybe<Rollout>;
  /** SHA-256 of the artifact actually downloaded. */
  sha256: Maybe<Scalars['String']['output']>;
  /** When the deploy starts (its descriptor's schedule.at): a DELAYED deploy waits until then. Null without schedule.at. */
  startAt: Maybe<Scalars['Time']['output']>;
  startedAt: Maybe<Scalars['Time']['output']>;
  state: DeploymentState;
  /** The status JSON of DESIGN.md (snake_case), as the CLI and REST print it. */
  status: Scalars['JSON']['output'];
  steps: Array<Step>;
  tenant: Scalars['String']['output'];
  updatedAt: Scalars['Time']['output'];
};


export type DeploymentCanPromoteArgs = {
  to: Scalars['String']['input'];
};


export type DeploymentLogsArgs = {
  after?: InputMaybe<Scalars['Int']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
};

export type DeploymentConnection = {
  __typename?: 'DeploymentConnection';
  edges: Array<DeploymentEdge>;
  nodes: Array<Deployment>;
  pageInfo: PageInfo;
};

export type DeploymentEdge = {
  __typename?: 'DeploymentEdge';
  cursor: Scalars['String']['output'];
  node: Deployment;
};

/** A change of a deploy, pushed live. */
export type DeploymentEvent = {
  __typename?: 'DeploymentEvent';
  deployment: Deployment;
  kind: Scalars['String']['output'];
  /** The log lines added since the previous event (kind log). */
  logLines: Array<LogLine>;
};

export type DeploymentFilter = {
  /** Only the deploys running or waiting. */
  active?: InputMaybe<Scalars['Boolean']['input']>;
  application?: InputMaybe<Scalars['String']['input']>;
  createdAfter?: InputMaybe<Scalars['Time']['input']>;
  createdBefore?: InputMaybe<Scalars['Time']['input']>;
  environment?: InputMaybe<Scalars['String']['input']>;
  requester?: InputMaybe<Scalars['String']['input']>;
  states?: InputMaybe<Array<DeploymentState>>;
  tenant?: InputMaybe<Scalars['String']['input']>;
};

/** An import of a deploy (its descriptor's imports): which deploy or release in service it reads, and what it uses of it. */
export type DeploymentImport = {
  __typename?: 'DeploymentImport';
  /** The release in service it reads (imports.NAME.current), as tenant/application/environment; null for a deployment import. */
  current: Maybe<Scalars['String']['output']>;
  /** The deploy it reads (imports.NAME.deployment); null for a current import. */
  deploymentId: Maybe<Scalars['ID']['output']>;
  /** The exports it uses in deploy.targetsFrom and deploy.paramsFrom, sorted. */
  exports: Array<Scalars['String']['output']>;
  name: Scalars['String']['output'];
};

export type DeploymentState =
  | 'AWAITING_APPROVAL'
  | 'CANCELLED'
  | 'DELAYED'
  | 'DEPENDENCY_FAILED'
  | 'ENQUEUED'
  | 'ERROR'
  | 'EXPIRED'
  | 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'
  | 'PENDING'
  | 'REJECTED'
  | 'SCHEDULED'
  | 'SUCCESS'
  | 'WAITING_DEPENDENCY';

/** A dora.dev performance band (dora.dev 2024/2025 report). */
export type DoraBand =
  | 'ELITE'
  | 'HIGH'
  | 'LOW'
  | 'MEDIUM';

/** The five metrics of a bucket; a deploy belongs to the bucket in which it finished. */
export type DoraFigures = {
  __typename?: 'DoraFigures';
  changeFailRate: DoraRate;
  deploymentFrequency: DoraFrequency;
  leadTime: DoraMedian;
  recoveryTime: DoraRecovery;
  reworkRate: DoraRate;
};

/** The scope and range of the DORA metrics; empty fields select any, the range defaults to the last 28 days. */
export type DoraFilter = {
  application?: InputMaybe<Scalars['String']['input']>;
  environment?: InputMaybe<Scalars['String']['input']>;
  /** How long after a deploy a rollback or remediation marks it as failed, in hours (default 24, at most 168). */
  failureWindowHours?: InputMaybe<Scalars['Int']['input']>;
  from?: InputMaybe<Scalars['Time']['input']>;
  tenant?: InputMaybe<Scalars['String']['input']>;
  to?: InputMaybe<Scalars['Time']['input']>;
};

/** The deployments of a bucket. */
export type DoraFrequency = {
  __typename?: 'DoraFrequency';
  band: DoraBand;
  deploymentIds: Array<Scalars['ID']['output']>;
  deploys: Scalars['Int']['output'];
  /** Deploys divided by the weeks of the bucket. */
  perWeek: Scalars['Float']['output'];
};

/** A median duration; null seconds when there is no sample. */
export type DoraMedian = {
  __typename?: 'DoraMedian';
  /** Null when there is not enough data. */
  band: Maybe<DoraBand>;
  deploymentIds: Array<Scalars['ID']['output']>;
  /** False below the threshold of samples: the figure has no band then (not enough data). */
  enoughData: Scalars['Boolean']['output'];
  samples: Scalars['Int']['output'];
  seconds: Maybe<Scalars['Float']['output']>;
};

/** count of of deployments; deploymentIds are the count ones. */
export type DoraRate = {
  __typename?: 'DoraRate';
  /** Null when there is not enough data, and always for the rework rate (the report publishes no bands). */
  band: Maybe<DoraBand>;
  count: Scalars['Int']['output'];
  deploymentIds: Array<Scalars['ID']['output']>;
  enoughData: Scalars['Boolean']['output'];
  of: Scalars['Int']['output'];
  rate: Scalars['Float']['output'];
};

/** One failure and the success that ended it. */
export type DoraRecovered = {
  __typename?: 'DoraRecovered';
  failedId: Scalars['ID']['output'];
  recoveredById: Scalars['ID']['output'];
  seconds: Scalars['Float']['output'];
};

/** The failed deployment recovery time: the median over the recovered failures. */
export type DoraRecovery = {
  __typename?: 'DoraRecovery';
  band: Maybe<DoraBand>;
  /** The failures recovered. */
  deploymentIds: Array<Scalars['ID']['output']>;
  enoughData: Scalars['Boolean']['output'];
  recoveries: Array<DoraRecovered>;
  samples: Scalars['Int']['output'];
  seconds: Maybe<Scalars['Float']['output']>;
  /** The failures with no later success in their environment. */
  unrecoveredIds: Array<Scalars['ID']['output']>;
};

export type DoraReport = {
  __typename?: 'DoraReport';
  /** The start of the first whole ISO week the filter's range meets. */
  from: Scalars['Time']['output'];
  /** The figures of the filter's range as asked, not widened to whole weeks: a rolling period such as the last 28 days (deploys per week over its own length). */
  range: DoraFigures;
  /** The end of the last whole ISO week the filter's range meets. */
  to: Scalars['Time']['output'];
  /** The figures of the whole weeks. */
  total: DoraFigures;
  weeks: Array<DoraWeek>;
};

/** One ISO week, Monday 00:00 UTC to the next Monday. */
export type DoraWeek = {
  __typename?: 'DoraWeek';
  figures: DoraFigures;
  start: Scalars['Time']['output'];
  week: Scalars['Int']['output'];
  year: Scalars['Int']['output'];
};

/** The deploy as it runs: descriptor merged with the environment configuration. */
export type EffectiveDeploy = {
  __typename?: 'EffectiveDeploy';
  configRevision: Maybe<Scalars['String']['output']>;
  configSource: Maybe<Scalars['String']['output']>;
  healthChecks: Array<Scalars['String']['output']>;
  params: Array<KeyValue>;
  plugin: Scalars['String']['output'];
  rollback: RollbackPolicy;
  secretNames: Array<Scalars['String']['output']>;
  targets: Array<Target>;
};

/** An application in an environment: what is in service, what ran there, and what the viewer may do. */
export type Environment = {
  __typename?: 'Environment';
  application: Scalars['String']['output'];
  /** Whether the viewer may roll it back now to the release before the one in service. */
  canRollback: Scalars['Boolean']['output'];
  environment: Scalars['String']['output'];
  /** The deploys there, newest first. */
  history: DeploymentConnection;
  /** The release in service and the one before it; null when nothing is in service. */
  inService: Maybe<InventoryEntry>;
  /** The last deploy there that failed; null when none did. */
  lastFailure: Maybe<LastFailure>;
  tenant: Scalars['String']['output'];
};


/** An application in an environment: what is in service, what ran there, and what the viewer may do. */
export type EnvironmentHistoryArgs = {
  after: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** The freeze calendar of one environment of freezeCalendars. */
export type EnvironmentFreezeCalendar = {
  __typename?: 'EnvironmentFreezeCalendar';
  application: Scalars['String']['output'];
  /** Null when the viewer may not read the environment (where freezeCalendar answers NOT_FOUND). */
  calendar: Maybe<FreezeCalendar>;
  environment: Scalars['String']['output'];
  tenant: Scalars['String']['output'];
};

/** An environment: its tenant (the server's default when null), application and environment. */
export type EnvironmentRef = {
  application: Scalars['String']['input'];
  environment: Scalars['String']['input'];
  tenant?: InputMaybe<Scalars['String']['input']>;
};

/** A checked export of a succeeded deploy: a value the deploys after it can import. */
export type Export = {
  __typename?: 'Export';
  /** string or targets. */
  format: Scalars['String']['output'];
  name: Scalars['String']['output'];
  /** Readable from other tenants through current imports. */
  public: Scalars['Boolean']['output'];
  /** The string, or the JSON list of targets ({host, port, user, labels} or plain hosts). */
  value: Scalars['String']['output'];
};

/** The freeze windows of an environment in a range of time. */
export type FreezeCalendar = {
  __typename?: 'FreezeCalendar';
  from: Scalars['Time']['output'];
  /** The window in force at the start of the range (the one that ends last when several are); null when not frozen. */
  frozenNow: Maybe<FreezeWindow>;
  /** The first window that starts after the start of the range; null when none does within it. */
  next: Maybe<FreezeWindow>;
  /** The end of the range, cut to 90 days after from. */
  to: Scalars['Time']['output'];
  /** Every window intersecting the range, by start (at most 200). */
  windows: Array<FreezeWindow>;
};

/** One window of a freeze calendar, [start, end): no deploy runs in it without an override. */
export type FreezeWindow = {
  __typename?: 'FreezeWindow';
  cron: Maybe<Scalars['String']['output']>;
  end: Scalars['Time']['output'];
  /** True when the window is a tick of one recurring window (cron and timeZone are then set). */
  recurring: Scalars['Boolean']['output'];
  /** The freeze rule (the window named by a refusal). */
  rule: Scalars['String']['output'];
  start: Scalars['Time']['output'];
  timeZone: Maybe<Scalars['String']['output']>;
};

/** How a gate check ended; the gate of a wave combines its checks under the rollout's no_data policy. */
export type GateResult =
  /** The gate saw something it does not want: an unhealthy target, a value out of bounds. */
  | 'FAIL'
  /** The gate could not be evaluated (Prometheus unreachable, a refused query): the rollout pauses. */
  | 'INCONCLUSIVE'
  /** The gate got no value to judge: the rollout's no_data policy decides. */
  | 'NO_DATA'
  /** The gate saw what it wants. */
  | 'PASS';

export type GovernanceDecision = {
  __typename?: 'GovernanceDecision';
  approvalGroups: Maybe<Array<Scalars['String']['output']>>;
  /** Approvals the matched rule requires; null when none. */
  approvalsRequired: Maybe<Scalars['Int']['output']>;
  /** The ITSM connector of the change ticket the deploy waits for. */
  change: Maybe<Scalars['String']['output']>;
  /** The freeze window the deploy was accepted in with an override. */
  freeze: Maybe<Scalars['String']['output']>;
  /** The environment where the same artifact had to succeed first. */
  promotionFrom: Maybe<Scalars['String']['output']>;
  /** The deploy there that satisfied the promotion. */
  promotionSatisfiedBy: Maybe<Scalars['String']['output']>;
  reason: Maybe<Scalars['String']['output']>;
  requires: Array<Scalars['String']['output']>;
  rule: Maybe<Scalars['String']['output']>;
};

/**
 * An application in an environment: its release in service and its last failure. The release fields are null when
 * nothing is in service there (every deploy so far failed, or the one in service was rolled back to nothing).
 */
export type InventoryEntry = {
  __typename?: 'InventoryEntry';
  application: Scalars['String']['output'];
  artifact: Maybe<Artifact>;
  /** Whether the viewer may roll this environment back now to the release before the one in service (Environment.canRollback). */
  canRollback: Scalars['Boolean']['output'];
  deployedAt: Maybe<Scalars['Time']['output']>;
  deployedBy: Maybe<Scalars['String']['output']>;
  /** The deploy in service; null when none is. */
  deploymentId: Maybe<Scalars['ID']['output']>;
  environment: Scalars['String']['output'];
  /** The last deploy there that failed (ERROR or MAX_RECOVERY_ATTEMPTS_EXCEEDED); null when none did. */
  lastFailure: Maybe<LastFailure>;
  /** The release in service before this one, what a rollback goes back to; null when there was none (or nothing is in service). */
  previous: Maybe<PreviousRelease>;
  /** The environments the release in service here may be promoted to by the viewer now (Deployment.promotionTargets of it); empty when nothing is in service. */
  promotionTargets: Array<Scalars['String']['output']>;
  sha256: Maybe<Scalars['String']['output']>;
  tenant: Scalars['String']['output'];
};

export type KeyValue = {
  __typename?: 'KeyValue';
  key: Scalars['String']['output'];
  value: Scalars['String']['output'];
};

/** The last deploy of an environment that failed, kept beside the release in service. */
export type LastFailure = {
  __typename?: 'LastFailure';
  deploymentId: Scalars['ID']['output'];
  error: Maybe<Scalars['String']['output']>;
  finishedAt: Scalars['Time']['output'];
  /** The outcome of its automatic rollback; null when the deploy ended before it was decided. */
  rollback: Maybe<RollbackState>;
  /** The step that failed (its display name); null when the deploy failed outside a step. */
  step: Maybe<Scalars['String']['output']>;
};

export type LogConnection = {
  __typename?: 'LogConnection';
  /** Pass as after to read what follows. */
  lastSeq: Scalars['Int']['output'];
  lines: Array<LogLine>;
};

export type LogLine = {
  __typename?: 'LogLine';
  level: Scalars['String']['output'];
  message: Scalars['String']['output'];
  seq: Scalars['Int']['output'];
  step: Maybe<Scalars['String']['output']>;
  time: Scalars['Time']['output'];
};

export type Mutation = {
  __typename?: 'Mutation';
  _noop: Maybe<Scalars['Boolean']['output']>;
  /** Abort a rollout: at once in a bake or a pause, else after the step in flight; the deploy fails and its rollback policy decides the rest. */
  abortRollout: Deployment;
  /** Approve a deploy AWAITING_APPROVAL (FORBIDDEN for its requester, CONFLICT when not waiting). */
  approveDeployment: Deployment;
  cancelDeployment: Deployment;
  /** Stop the release, then cancel its deploys that have not finished. */
  cancelRelease: Release;
  /** Stop a recurring schedule (deployment.submit on its environment); the deploys already started go on. */
  deleteSchedule: Scalars['Boolean']['output'];
  /** Pause a running rollout after the batch in flight, before the next batch or wave (deployment.cancel; CONFLICT when it is not running or a request is pending). */
  pauseRollout: Deployment;
  /**
   * Promote a deploy that succeeded to another environment of its application: a new deploy of the same artifact
   * (pinned to the digest it downloaded) and descriptor, without its after and deployment imports, submitted
   * with every check of a submission (deployment.submit on to, environment configuration, freeze, mandatory
   * promotion, approvals). newId names it (generated when absent); the same promotion again under it is returned
   * as it is, any other deploy under it is CONFLICT.
   */
  promote: Deployment;
  /** Submit an ended deploy's descriptor again in its environment, as promote does (a dry run again as a dry run). */
  redeploy: Deployment;
  /** Reject a deploy AWAITING_APPROVAL: it ends REJECTED, and the deploy returned is already so. */
  rejectDeployment: Deployment;
  /**
   * Send the dead deliveries of a deploy's callbacks again, with their webhook-id and payload: all of them, or the one
   * named; includeDisabled replays disabled ones too and enables their URLs again for the deploy's tenant. Needs
   * deployment.cancel on the deploy.
   */
  replayCallbacks: Array<CallbackDelivery>;
  /**
   * Resume a paused rollout: it goes on with what follows the pause, as if the gates that paused it had passed
   * (CONFLICT when not paused). pause names the pause answered (Rollout.pause.step): when the rollout has paused
   * again since, the resume is refused (CONFLICT) rather than end a pause nobody looked at. Without it, the pause in
   * force when the request is read.
   */
  resumeRollout: Deployment;
  /**
   * Redeploy the previous release in service of an environment (or the deploy to) as a new deploy. id names it
   * (as a descriptor's id; generated when absent): a rollback of the same environment under that id is returned
   * as it is, any other deploy under it is CONFLICT.
   */
  rollback: Deployment;
  /** Submit a manent/v1 descriptor (YAML or JSON). With validateOnly, run every check and return the plan without enqueuing. */
  submitDeployment: SubmitResult;
  /** Submit a kind: Release document, every deploy's descriptor inline. Resubmitting returns the existing release. */
  submitRelease: Release;
};


export type MutationAbortRolloutArgs = {
  id: Scalars['ID']['input'];
  reason?: InputMaybe<Scalars['String']['input']>;
};


export type MutationApproveDeploymentArgs = {
  comment?: InputMaybe<Scalars['String']['input']>;
  id: Scalars['ID']['input'];
};


export type MutationCancelDeploymentArgs = {
  id: Scalars['ID']['input'];
};


export type MutationCancelReleaseArgs = {
  id: Scalars['ID']['input'];
};


export type MutationDeleteScheduleArgs = {
  name: Scalars['String']['input'];
};


export type MutationPauseRolloutArgs = {
  id: Scalars['ID']['input'];
  reason?: InputMaybe<Scalars['String']['input']>;
};


export type MutationPromoteArgs = {
  id: Scalars['ID']['input'];
  newId: InputMaybe<Scalars['ID']['input']>;
  to: Scalars['String']['input'];
};


export type MutationRedeployArgs = {
  id: Scalars['ID']['input'];
  newId: InputMaybe<Scalars['ID']['input']>;
};


export type MutationRejectDeploymentArgs = {
  comment?: InputMaybe<Scalars['String']['input']>;
  id: Scalars['ID']['input'];
};


export type MutationReplayCallbacksArgs = {
  deliveryId: InputMaybe<Scalars['ID']['input']>;
  deploymentId: Scalars['ID']['input'];
  includeDisabled?: InputMaybe<Scalars['Boolean']['input']>;
};


export type MutationResumeRolloutArgs = {
  comment?: InputMaybe<Scalars['String']['input']>;
  id: Scalars['ID']['input'];
  pause: InputMaybe<Scalars['String']['input']>;
};


export type MutationRollbackArgs = {
  application: Scalars['String']['input'];
  environment: Scalars['String']['input'];
  id: InputMaybe<Scalars['ID']['input']>;
  tenant: InputMaybe<Scalars['String']['input']>;
  to: InputMaybe<Scalars['ID']['input']>;
};


export type MutationSubmitDeploymentArgs = {
  descriptor: Scalars['String']['input'];
  validateOnly?: InputMaybe<Scalars['Boolean']['input']>;
};


export type MutationSubmitReleaseArgs = {
  descriptor: Scalars['String']['input'];
};

export type PageInfo = {
  __typename?: 'PageInfo';
  endCursor: Maybe<Scalars['String']['output']>;
  hasNextPage: Scalars['Boolean']['output'];
};

export type Plan = {
  __typename?: 'Plan';
  /** The rollout planned at submission; null for a deploy without rollout. */
  rollout: Maybe<RolloutPlan>;
  steps: Array<PlannedStep>;
};

/**
 * A step of the plan. A custom step shows its type (http, command) and the hash of the specification the plan
 * captured, never the specification itself (its commands and URLs).
 */
export type PlannedStep = {
  __typename?: 'PlannedStep';
  mandatory: Scalars['Boolean']['output'];
  maxRetries: Scalars['Int']['output'];
  name: Scalars['String']['output'];
  /** The SHA-256 of a custom step's specification as the plan captured it (spec_hash); null for a standard step. */
  specHash: Maybe<Scalars['String']['output']>;
  /** Time limit of one run, in seconds. */
  timeoutSeconds: Scalars['Int']['output'];
  /** standard for the built-in steps; http or command for a custom step. */
  type: Scalars['String']['output'];
};

/** A target of a rollout plan. */
export type PlannedTarget = {
  __typename?: 'PlannedTarget';
  /** The index of its batch in the pass; null unless targeted. */
  batch: Maybe<Scalars['Int']['output']>;
  labels: Array<KeyValue>;
  /** The target's name, as steps and logs show it (host, path or host:path). */
  name: Scalars['String']['output'];
  outcome: TargetOutcome;
  /** The index of its pass; null unless targeted. */
  pass: Maybe<Scalars['Int']['output']>;
  /** Why it is excluded or rejected. */
  reason: Maybe<Scalars['String']['output']>;
};

/** A release that was in service in an environment before the current one: the deploy that last succeeded there before it. */
export type PreviousRelease = {
  __typename?: 'PreviousRelease';
  artifact: Artifact;
  /** When it went in service (the end of its deploy). */
  deployedAt: Scalars['Time']['output'];
  deployedBy: Maybe<Scalars['String']['output']>;
  deploymentId: Scalars['ID']['output'];
  sha256: Maybe<Scalars['String']['output']>;
};

/** A deploy that satisfied a mandatory promotion: the same artifact succeeded there. */
export type PromotionEvidence = {
  __typename?: 'PromotionEvidence';
  /** The deploy there; null when the viewer may not read it. */
  deploymentId: Maybe<Scalars['ID']['output']>;
  /** The environment where it had to succeed first. */
  environment: Scalars['String']['output'];
  finishedAt: Maybe<Scalars['Time']['output']>;
  version: Scalars['String']['output'];
};

export type Query = {
  __typename?: 'Query';
  /** Everything running or waiting right now. */
  activity: Array<Deployment>;
  /**
   * The audit log, newest first: only the entries the viewer may read (deployment.read on what an entry is about,
   * every deploy of a release; admin on every tenant for an entry about no environment). Others are left out, as if
   * they did not exist.
   */
  auditEntries: AuditConnection;
  deployment: Maybe<Deployment>;
  deployments: DeploymentConnection;
  /** The DORA metrics of the deploys the caller may read, in weekly buckets. */
  doraMetrics: DoraReport;
  /** An application in an environment; null when the viewer may not read it (tenant defaults to the server's). */
  environment: Maybe<Environment>;
  /**
   * The freeze calendar of an environment from `from` (default now) to `to` (default 30 days after from, at most 90).
   * tenant defaults to the server's default tenant. NOT_FOUND when the viewer may not read the environment;
   * UNPROCESSABLE when the governance cannot list its windows (a Rego policy).
   */
  freezeCalendar: FreezeCalendar;
  /**
   * The freeze calendars of several environments in one request (the environments matrix): one entry per environment
   * asked, in the order asked, over one range with the defaults of freezeCalendar. At most 500 environments;
   * UNPROCESSABLE beyond, or when the governance cannot list its windows.
   */
  freezeCalendars: Array<EnvironmentFreezeCalendar>;
  /** The release in service of every readable application and environment. */
  inventory: Array<InventoryEntry>;
  /** The deploys awaiting an approval the viewer may give. */
  pendingApprovals: Array<Deployment>;
  /** A release whose every deploy the viewer may read (NOT_FOUND otherwise). */
  release: Maybe<Release>;
  /** The releases whose every deploy the viewer may read, newest first. */
  releases: ReleaseConnection;
  /** The recurring schedules the viewer may read, by name. */
  schedules: Array<Schedule>;
  /** The signed-in identity. */
  viewer: Viewer;
};


export type QueryActivityArgs = {
  first?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryAuditEntriesArgs = {
  after: InputMaybe<Scalars['String']['input']>;
  filter: InputMaybe<AuditFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryDeploymentArgs = {
  id: Scalars['ID']['input'];
};


export type QueryDeploymentsArgs = {
  after: InputMaybe<Scalars['String']['input']>;
  filter: InputMaybe<DeploymentFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryDoraMetricsArgs = {
  filter: InputMaybe<DoraFilter>;
};


export type QueryEnvironmentArgs = {
  application: Scalars['String']['input'];
  environment: Scalars['String']['input'];
  tenant: InputMaybe<Scalars['String']['input']>;
};


export type QueryFreezeCalendarArgs = {
  application: Scalars['String']['input'];
  environment: Scalars['String']['input'];
  from: InputMaybe<Scalars['Time']['input']>;
  tenant: InputMaybe<Scalars['String']['input']>;
  to: InputMaybe<Scalars['Time']['input']>;
};


export type QueryFreezeCalendarsArgs = {
  environments: Array<EnvironmentRef>;
  from: InputMaybe<Scalars['Time']['input']>;
  to: InputMaybe<Scalars['Time']['input']>;
};


export type QueryReleaseArgs = {
  id: Scalars['ID']['input'];
};


export type QueryReleasesArgs = {
  after: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** A composite release (kind: Release): deploys with the dependencies between them, followed as a whole. */
export type Release = {
  __typename?: 'Release';
  /** Whether the viewer may cancel it now (deployment.cancel on every deploy of it, and it has not ended). */
  canCancel: Scalars['Boolean']['output'];
  createdAt: Scalars['Time']['output'];
  /** The deploys in the order of the descriptor. */
  deploys: Array<ReleaseDeploy>;
  /** The dependencies between the deploys, by name (from runs before to). */
  edges: Array<ReleaseEdge>;
  /** The deploys that did not succeed; null unless ERROR or CANCELLED. */
  error: Maybe<Scalars['String']['output']>;
  finishedAt: Maybe<Scalars['Time']['output']>;
  id: Scalars['ID']['output'];
  /** stop, continue or rollback. */
  onFailure: Scalars['String']['output'];
  requester: Scalars['String']['output'];
  state: ReleaseState;
};

export type ReleaseConnection = {
  __typename?: 'ReleaseConnection';
  nodes: Array<Release>;
  pageInfo: PageInfo;
};

/** One deploy of a release. */
export type ReleaseDeploy = {
  __typename?: 'ReleaseDeploy';
  /** Names of the deploys of the release it follows. */
  after: Array<Scalars['String']['output']>;
  application: Scalars['String']['output'];
  /** The deploy; null until it is queued. */
  deployment: Maybe<Deployment>;
  deploymentId: Scalars['ID']['output'];
  environment: Scalars['String']['output'];
  /** The deploy's error, or why the release did not queue it. */
  error: Maybe<Scalars['String']['output']>;
  /** The step that failed (its display name), for a deploy that ended ERROR in a step; null otherwise. */
  failedStep: Maybe<Scalars['String']['output']>;
  name: Scalars['String']['output'];
  rollbackDeploymentId: Maybe<Scalars['ID']['output']>;
  rollbackError: Maybe<Scalars['String']['output']>;
  /** The state of its rollback deploy (onFailure: rollback), REFUSED or SKIPPED; null when none. */
  rollbackState: Maybe<Scalars['String']['output']>;
  /** Null until the release queued the deploy. */
  state: Maybe<DeploymentState>;
};

export type ReleaseEdge = {
  __typename?: 'ReleaseEdge';
  from: Scalars['String']['output'];
  to: Scalars['String']['output'];
};

export type ReleaseState =
  | 'CANCELLED'
  | 'ERROR'
  | 'PENDING'
  | 'SUCCESS';

/** The automatic rollback of a deploy: its outcome and the compensations it ran. */
export type Rollback = {
  __typename?: 'Rollback';
  state: RollbackState;
  /** The compensations (kind ROLLBACK), in the order they ran: the latest step first (rollback:activation, then rollback:deploy). */
  steps: Array<Step>;
};

/** The automatic rollback policy decided for a deploy (environment configuration, changed by the descriptor where allowed). */
export type RollbackPolicy = {
  __typename?: 'RollbackPolicy';
  enabled: Scalars['Boolean']['output'];
  /** The steps whose failure rolls the deploy back, in the order of the pipeline. */
  on: Array<Scalars['String']['output']>;
};

/** The outcome of a deploy's automatic rollback. */
export type RollbackState =
  /** Every compensation succeeded: the targets are back at their checkpoints. */
  | 'COMPLETED'
  /** The deploy failed and its rollback policy is off. */
  | 'DISABLED'
  /** A compensation failed and the sequence stopped there. */
  | 'FAILED'
  /** The deploy succeeded, was cancelled, or failed in a step its policy does not roll back for. */
  | 'NOT_NEEDED'
  /** The compensations are running. */
  | 'RUNNING';

/** Where a deploy's rollout stands, wave by wave and target by target: the status JSON's rollout. */
export type Rollout = {
  __typename?: 'Rollout';
  /** The wave running, baking, gated, paused, awaiting approval or deferred; null before the first and after the last. */
  currentWave: Maybe<Scalars['String']['output']>;
  /** Null unless the rollout is paused. */
  pause: Maybe<RolloutPause>;
  /** What a person asked of the rollout that it has not done yet (a pause waits for the batch in flight); null for none. */
  request: Maybe<RolloutRequest>;
  state: RolloutState;
  /** Every target of the deploy once, in the order written. */
  targets: Array<RolloutTarget>;
  /** Of targetsTotal, those whose batch succeeded (state SUCCESS). */
  targetsDone: Scalars['Int']['output'];
  /** The targets the rollout deploys (targeted or deferred): what a summary counts without reading every target. */
  targetsTotal: Scalars['Int']['output'];
  waves: Array<RolloutWave>;
};

/** What a person asks of a running rollout. */
export type RolloutAction =
  | 'ABORT'
  | 'PAUSE'
  | 'RESUME';

/** The wait after a wave, before its gates. */
export type RolloutBake = {
  __typename?: 'RolloutBake';
  seconds: Scalars['Int']['output'];
  /** When the bake ends; null until it started. A countdown is this time against the clock. */
  until: Maybe<Scalars['Time']['output']>;
};

/** The targets of a pass handled at once. */
export type RolloutBatch = {
  __typename?: 'RolloutBatch';
  /** From 1; 0 in the single pass of a deploy without rollout. */
  index: Scalars['Int']['output'];
  /** The names of its targets, in the order written. */
  targets: Array<Scalars['String']['output']>;
};

/** A batch of a wave as it ran: the targets handled at once. */
export type RolloutBatchStatus = {
  __typename?: 'RolloutBatchStatus';
  finishedAt: Maybe<Scalars['Time']['output']>;
  /** From 1 within its wave. */
  index: Scalars['Int']['output'];
  startedAt: Maybe<Scalars['Time']['output']>;
  state: RolloutStepState;
  /** The names of its targets, in the order written. */
  targets: Array<Scalars['String']['output']>;
};

/** The outcome of a wave's gates. */
export type RolloutGate = {
  __typename?: 'RolloutGate';
  /** When the gates were checked. */
  at: Maybe<Scalars['Time']['output']>;
  checks: Array<RolloutGateCheck>;
  /** The combination of the checks: a failure outweighs a pause, which outweighs a pass. */
  state: GateResult;
};

/** One gate's result. */
export type RolloutGateCheck = {
  __typename?: 'RolloutGateCheck';
  /** One line that says why. */
  detail: Scalars['String']['output'];
  /** The gate's name (http or prometheus when it has none). */
  name: Scalars['String']['output'];
  state: GateResult;
  /** The value the gate judged (a Prometheus gate's); null when it has none. */
  value: Maybe<Scalars['Float']['output']>;
};

/** One wave of a rollout plan. */
export type RolloutPass = {
  __typename?: 'RolloutPass';
  /** Whether the wave waits for approvals before it starts. */
  approval: Scalars['Boolean']['output'];
  /** The wait after the wave before its gates, in seconds. */
  bakeSeconds: Scalars['Int']['output'];
  /** In order; an empty wave has none. */
  batches: Array<RolloutBatch>;
  /** From 1, in the order the passes run. */
  index: Scalars['Int']['output'];
  /** The failed targets the wave tolerates. */
  maxFailures: Scalars['Int']['output'];
  /** The wave's name; 10% for a pass of percentages, all for the single pass of a rollout without waves. */
  name: Scalars['String']['output'];
};

/** Why a rollout is paused, and who may end the pause. */
export type RolloutPause = {
  __typename?: 'RolloutPause';
  /** Who paused it; null for a pause the rollout decided (an inconclusive gate, on_failure: pause). */
  by: Maybe<Scalars['String']['output']>;
  /** The roles and groups allowed to resume or abort it. */
  mayResume: Array<Scalars['String']['output']>;
  reason: Scalars['String']['output'];
  since: Scalars['Time']['output'];
  /** The pause's record in the steps (pause[2/1]): name it to resumeRollout, so that the resume never ends another pause. */
  step: Scalars['String']['output'];
  /** When the pause times out into an abort (pause_timeout). */
  until: Scalars['Time']['output'];
};

/** How a deploy's targets are rolled out: the passes in order, and every target with its outcome. */
export type RolloutPlan = {
  __typename?: 'RolloutPlan';
  passes: Array<RolloutPass>;
  targets: Array<PlannedTarget>;
};

/** A person's request of a rollout, not taken yet. */
export type RolloutRequest = {
  __typename?: 'RolloutRequest';
  action: RolloutAction;
  at: Scalars['Time']['output'];
  by: Scalars['String']['output'];
};

/** Where a rollout as a whole stands. */
export type RolloutState =
  /** A wave failed, or someone aborted it: the waves done are rolled back per the rollback policy. */
  | 'ABORTED'
  /** The next wave waits for its approvals. */
  | 'AWAITING_APPROVAL'
  /** Every wave passed. */
  | 'COMPLETED'
  /** The next wave waits for a freeze window over its targets to end. */
  | 'DEFERRED'
  /** Waiting for someone allowed to resume or abort it (see pause); it aborts when the pause times out. */
  | 'PAUSED'
  /** Planned; no wave has started yet. */
  | 'PENDING'
  /** A wave is running its batches, baking or checking its gates. */
  | 'RUNNING';

/** The step vocabulary, with ROLLED_BACK for what a compensation brought back: the state of a batch or a target of a rollout. */
export type RolloutStepState =
  | 'CANCELLED'
  | 'ERROR'
  | 'PENDING'
  | 'ROLLED_BACK'
  | 'RUNNING'
  | 'SKIPPED'
  | 'SUCCESS';

/** One target of a rollout: its outcome, its place, and where it stands. */
export type RolloutTarget = {
  __typename?: 'RolloutTarget';
  /** The batch in its wave (from 1); null when it has no wave. */
  batch: Maybe<Scalars['Int']['output']>;
  error: Maybe<Scalars['String']['output']>;
  labels: Array<KeyValue>;
  name: Scalars['String']['output'];
  outcome: TargetOutcome;
  /** The version the target runs once its batch activated, or the one it was brought back to. */
  release: Maybe<Scalars['String']['output']>;
  state: RolloutStepState;
  /** The wave of a targeted or deferred target; null otherwise. */
  wave: Maybe<Scalars['String']['output']>;
};

/** One wave of a running (or finished) rollout. */
export type RolloutWave = {
  __typename?: 'RolloutWave';
  /** The approval asked before the wave; null when it asks none. */
  approval: Maybe<ApprovalStatus>;
  bake: Maybe<RolloutBake>;
  batches: Array<RolloutBatchStatus>;
  /** When the freeze window deferring the wave ends; null unless it is deferred. */
  deferredUntil: Maybe<Scalars['Time']['output']>;
  /** Null until the gates ran. */
  gate: Maybe<RolloutGate>;
  name: Scalars['String']['output'];
  state: WaveState;
  /** The names of its targets, in the order written; empty for an empty wave. */
  targets: Array<Scalars['String']['output']>;
};

/** A recurring schedule (schedule.cron): every tick starts a deploy <name>@<UTC time> with the plan captured at submission. */
export type Schedule = {
  __typename?: 'Schedule';
  application: Scalars['String']['output'];
  /** Whether the viewer may delete it now (deployment.submit on its environment). */
  canDelete: Scalars['Boolean']['output'];
  createdAt: Scalars['Time']['output'];
  /** 5 fields, as in crontab. */
  cron: Scalars['String']['output'];
  environment: Scalars['String']['output'];
  /** The ID of the deploy of the last tick that started one; null before the first. */
  lastDeployment: Maybe<Scalars['ID']['output']>;
  /** Why the last tick started no deploy (its deploy ID was taken by a deploy this schedule did not start); null when it started one. */
  lastError: Maybe<Scalars['String']['output']>;
  /** The last tick run; null before the first. */
  lastTick: Maybe<Scalars['Time']['output']>;
  /** The descriptor's id, or <application>-<environment>-schedule. */
  name: Scalars['String']['output'];
  /** The next tick; null until the schedule's workflow has computed it. */
  nextTick: Maybe<Scalars['Time']['output']>;
  /** Who submitted the descriptor last; every tick deploys as this identity. */
  requester: Scalars['String']['output'];
  state: ScheduleState;
  tenant: Scalars['String']['output'];
  /** The IANA time zone the cron expression is read in (default UTC). */
  timezone: Scalars['String']['output'];
  /** When the descriptor was last resubmitted (or the schedule created). */
  updatedAt: Scalars['Time']['output'];
};

/** The words of the deploy lifecycle: a schedule in force is SCHEDULED, as its submission answers. */
export type ScheduleState =
  | 'DELETED'
  | 'SCHEDULED';

/**
 * One operation of a deploy: a step of its plan (run or dry run), the checkpoint taken before it, or its
 * compensation; in a pass and batch of a rollout, on one target or on the whole batch.
 */
export type Step = {
  __typename?: 'Step';
  attempts: Scalars['Int']['output'];
  /** The batch in the pass; 0 outside a rollout. */
  batch: Scalars['Int']['output'];
  /** Duration in milliseconds once finished, or so far while running. */
  durationMs: Maybe<Scalars['Int']['output']>;
  error: Maybe<Scalars['String']['output']>;
  finishedAt: Maybe<Scalars['Time']['output']>;
  kind: StepKind;
  /**
   * How the status and the log show the operation: deploy, checkpoint:deploy, rollback:activation; a batch of a
   * rollout adds [pass/batch] (deploy[1/2]), one target @name (deploy@web-1).
   */
  name: Scalars['String']['output'];
  output: Array<KeyValue>;
  /** The pass of the rollout; 0 outside a rollout. */
  pass: Scalars['Int']['output'];
  /** Orders the operations: the index of its step in the plan; negative before the plan (change:open), past its end after it (compensations, change:close). */
  position: Scalars['Int']['output'];
  startedAt: Maybe<Scalars['Time']['output']>;
  state: StepState;
  /** The target the operation ran on; null when it ran on every target of its batch. */
  target: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
};

/** What an operation of a step does. */
export type StepKind =
  /** What the automatic rollback would go back to, recorded before a step that can be undone (deploy, activation). */
  | 'CHECKPOINT'
  /** The step's dry run (a dry-run deploy). */
  | 'DRY_RUN'
  /** The compensation of a step, run by the automatic rollback. */
  | 'ROLLBACK'
  /** The step's own work. */
  | 'RUN';

export type StepState =
  | 'CANCELLED'
  | 'ERROR'
  | 'PENDING'
  | 'RUNNING'
  | 'SKIPPED'
  | 'SUCCESS';

export type SubmitResult = {
  __typename?: 'SubmitResult';
  /** False when a deploy with this ID existed and was returned. */
  created: Scalars['Boolean']['output'];
  deployment: Deployment;
  /** The recurring schedule created or updated (schedule.cron); null for any other submission. */
  schedule: Maybe<Schedule>;
  /** True for validateOnly: nothing was stored. */
  validated: Scalars['Boolean']['output'];
};

export type Subscription = {
  __typename?: 'Subscription';
  _noop: Maybe<Scalars['Boolean']['output']>;
  /** Every change of a readable deploy (the activity feed). */
  activity: DeploymentEvent;
  /** A deploy's state, steps and log lines; starts with its current state, ends after its final state. */
  deploymentEvents: DeploymentEvent;
  /** The deploys awaiting an approval the viewer may give: the current list, then again whenever a deploy changes. */
  pendingApprovals: Array<Deployment>;
  /** The release now, then again whenever it or one of its deploys changes; completes when it ends. */
  releaseEvents: Release;
};


export type SubscriptionDeploymentEventsArgs = {
  id: Scalars['ID']['input'];
  logsAfter?: InputMaybe<Scalars['Int']['input']>;
};


export type SubscriptionReleaseEventsArgs = {
  id: Scalars['ID']['input'];
};

export type Target = {
  __typename?: 'Target';
  host: Maybe<Scalars['String']['output']>;
  name: Scalars['String']['output'];
  path: Maybe<Scalars['String']['output']>;
  port: Maybe<Scalars['Int']['output']>;
  user: Maybe<Scalars['String']['output']>;
};

/** What a rollout does with a target; every target has exactly one outcome. */
export type TargetOutcome =
  /** Its wave waits for a freeze window to end (decided when the rollout runs). */
  | 'DEFERRED'
  /** Matched the rollout's exclude: never touched. */
  | 'EXCLUDED'
  /** Did not match the rollout's rule, or no wave takes it: the deploy fails before any target is touched. */
  | 'REJECTED'
  /** In a pass and a batch of the rollout. */
  | 'TARGETED';

export type Viewer = {
  __typename?: 'Viewer';
  groups: Array<Scalars['String']['output']>;
  /** token:<name> or oidc:<user>. */
  subject: Scalars['String']['output'];
};

/** Where one wave of a rollout stands. */
export type WaveState =
  | 'AWAITING_APPROVAL'
  /** Every batch is done; the bake runs until bake.until. */
  | 'BAKING'
  /** Its targets are under a freeze window: it starts by itself when the window ends (deferredUntil). */
  | 'DEFERRED'
  /** The plan gave it no target: it has nothing to do (it has no batch). */
  | 'EMPTY'
  | 'FAILED'
  /** The bake is over; the gates are being checked. */
  | 'GATING'
  | 'PASSED'
  | 'PAUSED'
  | 'PENDING'
  /** Its batches were compensated after a later wave failed. */
  | 'ROLLED_BACK'
  /** Its batches are running, one after the other. */
  | 'RUNNING'
  /** Never started: an earlier wave failed or the rollout was aborted. */
  | 'SKIPPED';

export type AppViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type AppViewerQuery = { __typename?: 'Query', viewer: { __typename?: 'Viewer', subject: string } };

export type ActivityDeploymentFragment = { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, currentStep: string | null, error: string | null, artifact: { __typename?: 'Artifact', name: string, version: string }, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, maxRetries: number }> }, steps: Array<{ __typename?: 'Step', name: string, state: StepState, kind: StepKind, position: number, attempts: number }> };

export type ActivityPageQueryVariables = Exact<{ [key: string]: never; }>;


export type ActivityPageQuery = { __typename?: 'Query', activity: Array<{ __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, currentStep: string | null, error: string | null, artifact: { __typename?: 'Artifact', name: string, version: string }, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, maxRetries: number }> }, steps: Array<{ __typename?: 'Step', name: string, state: StepState, kind: StepKind, position: number, attempts: number }> }>, recent: { __typename?: 'DeploymentConnection', nodes: Array<{ __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, currentStep: string | null, error: string | null, artifact: { __typename?: 'Artifact', name: string, version: string }, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, maxRetries: number }> }, steps: Array<{ __typename?: 'Step', name: string, state: StepState, kind: StepKind, position: number, attempts: number }> }> } };

export type ActivityFeedSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type ActivityFeedSubscription = { __typename?: 'Subscription', activity: { __typename?: 'DeploymentEvent', kind: string, deployment: { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, currentStep: string | null, error: string | null, artifact: { __typename?: 'Artifact', name: string, version: string }, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, maxRetries: number }> }, steps: Array<{ __typename?: 'Step', name: string, state: StepState, kind: StepKind, position: number, attempts: number }> } } };

export type ApprovalViewFragment = { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, updatedAt: string, canApprove: boolean, artifact: { __typename?: 'Artifact', name: string, version: string }, decision: { __typename?: 'GovernanceDecision', rule: string | null, requires: Array<string>, reason: string | null, approvalsRequired: number | null, approvalGroups: Array<string> | null, change: string | null, freeze: string | null, promotionFrom: string | null, promotionSatisfiedBy: string | null }, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, roles: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null }> } | null };

export type PendingApprovalsQueryVariables = Exact<{ [key: string]: never; }>;


export type PendingApprovalsQuery = { __typename?: 'Query', pendingApprovals: Array<{ __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, updatedAt: string, canApprove: boolean, artifact: { __typename?: 'Artifact', name: string, version: string }, decision: { __typename?: 'GovernanceDecision', rule: string | null, requires: Array<string>, reason: string | null, approvalsRequired: number | null, approvalGroups: Array<string> | null, change: string | null, freeze: string | null, promotionFrom: string | null, promotionSatisfiedBy: string | null }, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, roles: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null }> } | null }> };

export type PendingApprovalsLiveSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type PendingApprovalsLiveSubscription = { __typename?: 'Subscription', pendingApprovals: Array<{ __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, updatedAt: string, canApprove: boolean, artifact: { __typename?: 'Artifact', name: string, version: string }, decision: { __typename?: 'GovernanceDecision', rule: string | null, requires: Array<string>, reason: string | null, approvalsRequired: number | null, approvalGroups: Array<string> | null, change: string | null, freeze: string | null, promotionFrom: string | null, promotionSatisfiedBy: string | null }, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, roles: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null }> } | null }> };

export type ApproveDeploymentMutationVariables = Exact<{
  id: Scalars['ID']['input'];
  comment: InputMaybe<Scalars['String']['input']>;
}>;


export type ApproveDeploymentMutation = { __typename?: 'Mutation', approveDeployment: { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, updatedAt: string, canApprove: boolean, artifact: { __typename?: 'Artifact', name: string, version: string }, decision: { __typename?: 'GovernanceDecision', rule: string | null, requires: Array<string>, reason: string | null, approvalsRequired: number | null, approvalGroups: Array<string> | null, change: string | null, freeze: string | null, promotionFrom: string | null, promotionSatisfiedBy: string | null }, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, roles: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null }> } | null } };

export type RejectDeploymentMutationVariables = Exact<{
  id: Scalars['ID']['input'];
  comment: InputMaybe<Scalars['String']['input']>;
}>;


export type RejectDeploymentMutation = { __typename?: 'Mutation', rejectDeployment: { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, updatedAt: string, canApprove: boolean, artifact: { __typename?: 'Artifact', name: string, version: string }, decision: { __typename?: 'GovernanceDecision', rule: string | null, requires: Array<string>, reason: string | null, approvalsRequired: number | null, approvalGroups: Array<string> | null, change: string | null, freeze: string | null, promotionFrom: string | null, promotionSatisfiedBy: string | null }, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, roles: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null }> } | null } };

export type AuditPageQueryVariables = Exact<{
  filter: InputMaybe<AuditFilter>;
  first: Scalars['Int']['input'];
  after: InputMaybe<Scalars['String']['input']>;
}>;


export type AuditPageQuery = { __typename?: 'Query', auditEntries: { __typename?: 'AuditConnection', nodes: Array<{ __typename?: 'AuditEntry', id: string, time: string, actor: string, action: string, target: string, details: unknown, resources: Array<{ __typename?: 'AuditResource', tenant: string, application: string, environment: string }> }>, pageInfo: { __typename?: 'PageInfo', hasNextPage: boolean, endCursor: string | null } } };

export type DeploymentViewFragment = { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, release: string | null, sha256: string | null, currentStep: string | null, error: string | null, cancelRequested: boolean, cancelledBy: string | null, canCancel: boolean, canApprove: boolean, canPauseRollout: boolean, canResumeRollout: boolean, canAbortRollout: boolean, artifact: { __typename?: 'Artifact', type: string, name: string, version: string, source: string, pinnedSha256: string | null }, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }>, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, type: string, specHash: string | null, maxRetries: number, timeoutSeconds: number, mandatory: boolean }> }, effective: { __typename?: 'EffectiveDeploy', plugin: string, healthChecks: Array<string>, secretNames: Array<string>, configSource: string | null, configRevision: string | null, targets: Array<{ __typename?: 'Target', name: string, host: string | null, port: number | null, user: string | null, path: string | null }>, rollback: { __typename?: 'RollbackPolicy', enabled: boolean, on: Array<string> } }, decision: { __typename?: 'GovernanceDecision', rule: string | null, requires: Array<string>, reason: string | null, approvalsRequired: number | null, approvalGroups: Array<string> | null, change: string | null, freeze: string | null, promotionFrom: string | null, promotionSatisfiedBy: string | null }, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null, after: { __typename?: 'AfterStatus', status: string, expiresAt: string | null, reason: string | null, dependencies: Array<{ __typename?: 'Dependency', id: string, state: DeploymentState | null }> } | null, dependents: Array<{ __typename?: 'Dependency', id: string, state: DeploymentState | null }>, exports: Array<{ __typename?: 'Export', name: string, format: string, value: string, public: boolean }>, steps: Array<{ __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, rollback: { __typename?: 'Rollback', state: RollbackState, steps: Array<{ __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> }> } | null, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, targetsTotal: number, targetsDone: number, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, targets: Array<string>, deferredUntil: string | null, batches: Array<{ __typename?: 'RolloutBatchStatus', index: number, targets: Array<string>, state: RolloutStepState, startedAt: string | null, finishedAt: string | null }>, bake: { __typename?: 'RolloutBake', seconds: number, until: string | null } | null, gate: { __typename?: 'RolloutGate', state: GateResult, at: string | null, checks: Array<{ __typename?: 'RolloutGateCheck', name: string, state: GateResult, value: number | null, detail: string }> } | null, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, roles: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean }> } | null }>, targets: Array<{ __typename?: 'RolloutTarget', name: string, outcome: TargetOutcome, wave: string | null, batch: number | null, state: RolloutStepState, release: string | null, error: string | null, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, pause: { __typename?: 'RolloutPause', step: string, reason: string, since: string, until: string, by: string | null, mayResume: Array<string> } | null, request: { __typename?: 'RolloutRequest', action: RolloutAction, by: string, at: string } | null } | null };

export type RolloutViewFragment = { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, targetsTotal: number, targetsDone: number, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, targets: Array<string>, deferredUntil: string | null, batches: Array<{ __typename?: 'RolloutBatchStatus', index: number, targets: Array<string>, state: RolloutStepState, startedAt: string | null, finishedAt: string | null }>, bake: { __typename?: 'RolloutBake', seconds: number, until: string | null } | null, gate: { __typename?: 'RolloutGate', state: GateResult, at: string | null, checks: Array<{ __typename?: 'RolloutGateCheck', name: string, state: GateResult, value: number | null, detail: string }> } | null, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, roles: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean }> } | null }>, targets: Array<{ __typename?: 'RolloutTarget', name: string, outcome: TargetOutcome, wave: string | null, batch: number | null, state: RolloutStepState, release: string | null, error: string | null, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, pause: { __typename?: 'RolloutPause', step: string, reason: string, since: string, until: string, by: string | null, mayResume: Array<string> } | null, request: { __typename?: 'RolloutRequest', action: RolloutAction, by: string, at: string } | null };

export type PauseRolloutMutationVariables = Exact<{
  id: Scalars['ID']['input'];
  reason: InputMaybe<Scalars['String']['input']>;
}>;


export type PauseRolloutMutation = { __typename?: 'Mutation', pauseRollout: { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, release: string | null, sha256: string | null, currentStep: string | null, error: string | null, cancelRequested: boolean, cancelledBy: string | null, canCancel: boolean, canApprove: boolean, canPauseRollout: boolean, canResumeRollout: boolean, canAbortRollout: boolean, artifact: { __typename?: 'Artifact', type: string, name: string, version: string, source: string, pinnedSha256: string | null }, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }>, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, type: string, specHash: string | null, maxRetries: number, timeoutSeconds: number, mandatory: boolean }> }, effective: { __typename?: 'EffectiveDeploy', plugin: string, healthChecks: Array<string>, secretNames: Array<string>, configSource: string | null, configRevision: string | null, targets: Array<{ __typename?: 'Target', name: string, host: string | null, port: number | null, user: string | null, path: string | null }>, rollback: { __typename?: 'RollbackPolicy', enabled: boolean, on: Array<string> } }, decision: { __typename?: 'GovernanceDecision', rule: string | null, requires: Array<string>, reason: string | null, approvalsRequired: number | null, approvalGroups: Array<string> | null, change: string | null, freeze: string | null, promotionFrom: string | null, promotionSatisfiedBy: string | null }, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null, after: { __typename?: 'AfterStatus', status: string, expiresAt: string | null, reason: string | null, dependencies: Array<{ __typename?: 'Dependency', id: string, state: DeploymentState | null }> } | null, dependents: Array<{ __typename?: 'Dependency', id: string, state: DeploymentState | null }>, exports: Array<{ __typename?: 'Export', name: string, format: string, value: string, public: boolean }>, steps: Array<{ __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, rollback: { __typename?: 'Rollback', state: RollbackState, steps: Array<{ __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> }> } | null, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, targetsTotal: number, targetsDone: number, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, targets: Array<string>, deferredUntil: string | null, batches: Array<{ __typename?: 'RolloutBatchStatus', index: number, targets: Array<string>, state: RolloutStepState, startedAt: string | null, finishedAt: string | null }>, bake: { __typename?: 'RolloutBake', seconds: number, until: string | null } | null, gate: { __typename?: 'RolloutGate', state: GateResult, at: string | null, checks: Array<{ __typename?: 'RolloutGateCheck', name: string, state: GateResult, value: number | null, detail: string }> } | null, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, roles: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean }> } | null }>, targets: Array<{ __typename?: 'RolloutTarget', name: string, outcome: TargetOutcome, wave: string | null, batch: number | null, state: RolloutStepState, release: string | null, error: string | null, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, pause: { __typename?: 'RolloutPause', step: string, reason: string, since: string, until: string, by: string | null, mayResume: Array<string> } | null, request: { __typename?: 'RolloutRequest', action: RolloutAction, by: string, at: string } | null } | null } };

export type ResumeRolloutMutationVariables = Exact<{
  id: Scalars['ID']['input'];
  comment: InputMaybe<Scalars['String']['input']>;
  pause: InputMaybe<Scalars['String']['input']>;
}>;


export type ResumeRolloutMutation = { __typename?: 'Mutation', resumeRollout: { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, release: string | null, sha256: string | null, currentStep: string | null, error: string | null, cancelRequested: boolean, cancelledBy: string | null, canCancel: boolean, canApprove: boolean, canPauseRollout: boolean, canResumeRollout: boolean, canAbortRollout: boolean, artifact: { __typename?: 'Artifact', type: string, name: string, version: string, source: string, pinnedSha256: string | null }, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }>, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, type: string, specHash: string | null, maxRetries: number, timeoutSeconds: number, mandatory: boolean }> }, effective: { __typename?: 'EffectiveDeploy', plugin: string, healthChecks: Array<string>, secretNames: Array<string>, configSource: string | null, configRevision: string | null, targets: Array<{ __typename?: 'Target', name: string, host: string | null, port: number | null, user: string | null, path: string | null }>, rollback: { __typename?: 'RollbackPolicy', enabled: boolean, on: Array<string> } }, decision: { __typename?: 'GovernanceDecision', rule: string | null, requires: Array<string>, reason: string | null, approvalsRequired: number | null, approvalGroups: Array<string> | null, change: string | null, freeze: string | null, promotionFrom: string | null, promotionSatisfiedBy: string | null }, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null, after: { __typename?: 'AfterStatus', status: string, expiresAt: string | null, reason: string | null, dependencies: Array<{ __typename?: 'Dependency', id: string, state: DeploymentState | null }> } | null, dependents: Array<{ __typename?: 'Dependency', id: string, state: DeploymentState | null }>, exports: Array<{ __typename?: 'Export', name: string, format: string, value: string, public: boolean }>, steps: Array<{ __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, rollback: { __typename?: 'Rollback', state: RollbackState, steps: Array<{ __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> }> } | null, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, targetsTotal: number, targetsDone: number, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, targets: Array<string>, deferredUntil: string | null, batches: Array<{ __typename?: 'RolloutBatchStatus', index: number, targets: Array<string>, state: RolloutStepState, startedAt: string | null, finishedAt: string | null }>, bake: { __typename?: 'RolloutBake', seconds: number, until: string | null } | null, gate: { __typename?: 'RolloutGate', state: GateResult, at: string | null, checks: Array<{ __typename?: 'RolloutGateCheck', name: string, state: GateResult, value: number | null, detail: string }> } | null, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, roles: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean }> } | null }>, targets: Array<{ __typename?: 'RolloutTarget', name: string, outcome: TargetOutcome, wave: string | null, batch: number | null, state: RolloutStepState, release: string | null, error: string | null, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, pause: { __typename?: 'RolloutPause', step: string, reason: string, since: string, until: string, by: string | null, mayResume: Array<string> } | null, request: { __typename?: 'RolloutRequest', action: RolloutAction, by: string, at: string } | null } | null } };

export type AbortRolloutMutationVariables = Exact<{
  id: Scalars['ID']['input'];
  reason: InputMaybe<Scalars['String']['input']>;
}>;


export type AbortRolloutMutation = { __typename?: 'Mutation', abortRollout: { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, release: string | null, sha256: string | null, currentStep: string | null, error: string | null, cancelRequested: boolean, cancelledBy: string | null, canCancel: boolean, canApprove: boolean, canPauseRollout: boolean, canResumeRollout: boolean, canAbortRollout: boolean, artifact: { __typename?: 'Artifact', type: string, name: string, version: string, source: string, pinnedSha256: string | null }, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }>, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, type: string, specHash: string | null, maxRetries: number, timeoutSeconds: number, mandatory: boolean }> }, effective: { __typename?: 'EffectiveDeploy', plugin: string, healthChecks: Array<string>, secretNames: Array<string>, configSource: string | null, configRevision: string | null, targets: Array<{ __typename?: 'Target', name: string, host: string | null, port: number | null, user: string | null, path: string | null }>, rollback: { __typename?: 'RollbackPolicy', enabled: boolean, on: Array<string> } }, decision: { __typename?: 'GovernanceDecision', rule: string | null, requires: Array<string>, reason: string | null, approvalsRequired: number | null, approvalGroups: Array<string> | null, change: string | null, freeze: string | null, promotionFrom: string | null, promotionSatisfiedBy: string | null }, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null, after: { __typename?: 'AfterStatus', status: string, expiresAt: string | null, reason: string | null, dependencies: Array<{ __typename?: 'Dependency', id: string, state: DeploymentState | null }> } | null, dependents: Array<{ __typename?: 'Dependency', id: string, state: DeploymentState | null }>, exports: Array<{ __typename?: 'Export', name: string, format: string, value: string, public: boolean }>, steps: Array<{ __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, rollback: { __typename?: 'Rollback', state: RollbackState, steps: Array<{ __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> }> } | null, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, targetsTotal: number, targetsDone: number, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, targets: Array<string>, deferredUntil: string | null, batches: Array<{ __typename?: 'RolloutBatchStatus', index: number, targets: Array<string>, state: RolloutStepState, startedAt: string | null, finishedAt: string | null }>, bake: { __typename?: 'RolloutBake', seconds: number, until: string | null } | null, gate: { __typename?: 'RolloutGate', state: GateResult, at: string | null, checks: Array<{ __typename?: 'RolloutGateCheck', name: string, state: GateResult, value: number | null, detail: string }> } | null, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, roles: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean }> } | null }>, targets: Array<{ __typename?: 'RolloutTarget', name: string, outcome: TargetOutcome, wave: string | null, batch: number | null, state: RolloutStepState, release: string | null, error: string | null, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, pause: { __typename?: 'RolloutPause', step: string, reason: string, since: string, until: string, by: string | null, mayResume: Array<string> } | null, request: { __typename?: 'RolloutRequest', action: RolloutAction, by: string, at: string } | null } | null } };

export type StepViewFragment = { __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> };

export type LogLineViewFragment = { __typename?: 'LogLine', seq: number, time: string, step: string | null, level: string, message: string };

export type DeploymentPageQueryVariables = Exact<{
  id: Scalars['ID']['input'];
}>;


export type DeploymentPageQuery = { __typename?: 'Query', deployment: { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, release: string | null, sha256: string | null, currentStep: string | null, error: string | null, cancelRequested: boolean, cancelledBy: string | null, canCancel: boolean, canApprove: boolean, canPauseRollout: boolean, canResumeRollout: boolean, canAbortRollout: boolean, logs: { __typename?: 'LogConnection', lastSeq: number, lines: Array<{ __typename?: 'LogLine', seq: number, time: string, step: string | null, level: string, message: string }> }, artifact: { __typename?: 'Artifact', type: string, name: string, version: string, source: string, pinnedSha256: string | null }, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }>, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, type: string, specHash: string | null, maxRetries: number, timeoutSeconds: number, mandatory: boolean }> }, effective: { __typename?: 'EffectiveDeploy', plugin: string, healthChecks: Array<string>, secretNames: Array<string>, configSource: string | null, configRevision: string | null, targets: Array<{ __typename?: 'Target', name: string, host: string | null, port: number | null, user: string | null, path: string | null }>, rollback: { __typename?: 'RollbackPolicy', enabled: boolean, on: Array<string> } }, decision: { __typename?: 'GovernanceDecision', rule: string | null, requires: Array<string>, reason: string | null, approvalsRequired: number | null, approvalGroups: Array<string> | null, change: string | null, freeze: string | null, promotionFrom: string | null, promotionSatisfiedBy: string | null }, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null, after: { __typename?: 'AfterStatus', status: string, expiresAt: string | null, reason: string | null, dependencies: Array<{ __typename?: 'Dependency', id: string, state: DeploymentState | null }> } | null, dependents: Array<{ __typename?: 'Dependency', id: string, state: DeploymentState | null }>, exports: Array<{ __typename?: 'Export', name: string, format: string, value: string, public: boolean }>, steps: Array<{ __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, rollback: { __typename?: 'Rollback', state: RollbackState, steps: Array<{ __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> }> } | null, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, targetsTotal: number, targetsDone: number, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, targets: Array<string>, deferredUntil: string | null, batches: Array<{ __typename?: 'RolloutBatchStatus', index: number, targets: Array<string>, state: RolloutStepState, startedAt: string | null, finishedAt: string | null }>, bake: { __typename?: 'RolloutBake', seconds: number, until: string | null } | null, gate: { __typename?: 'RolloutGate', state: GateResult, at: string | null, checks: Array<{ __typename?: 'RolloutGateCheck', name: string, state: GateResult, value: number | null, detail: string }> } | null, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, roles: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean }> } | null }>, targets: Array<{ __typename?: 'RolloutTarget', name: string, outcome: TargetOutcome, wave: string | null, batch: number | null, state: RolloutStepState, release: string | null, error: string | null, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, pause: { __typename?: 'RolloutPause', step: string, reason: string, since: string, until: string, by: string | null, mayResume: Array<string> } | null, request: { __typename?: 'RolloutRequest', action: RolloutAction, by: string, at: string } | null } | null } | null };

export type DeploymentLiveSubscriptionVariables = Exact<{
  id: Scalars['ID']['input'];
  logsAfter: InputMaybe<Scalars['Int']['input']>;
}>;


export type DeploymentLiveSubscription = { __typename?: 'Subscription', deploymentEvents: { __typename?: 'DeploymentEvent', kind: string, deployment: { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, release: string | null, sha256: string | null, currentStep: string | null, error: string | null, cancelRequested: boolean, cancelledBy: string | null, canCancel: boolean, canApprove: boolean, canPauseRollout: boolean, canResumeRollout: boolean, canAbortRollout: boolean, artifact: { __typename?: 'Artifact', type: string, name: string, version: string, source: string, pinnedSha256: string | null }, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }>, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, type: string, specHash: string | null, maxRetries: number, timeoutSeconds: number, mandatory: boolean }> }, effective: { __typename?: 'EffectiveDeploy', plugin: string, healthChecks: Array<string>, secretNames: Array<string>, configSource: string | null, configRevision: string | null, targets: Array<{ __typename?: 'Target', name: string, host: string | null, port: number | null, user: string | null, path: string | null }>, rollback: { __typename?: 'RollbackPolicy', enabled: boolean, on: Array<string> } }, decision: { __typename?: 'GovernanceDecision', rule: string | null, requires: Array<string>, reason: string | null, approvalsRequired: number | null, approvalGroups: Array<string> | null, change: string | null, freeze: string | null, promotionFrom: string | null, promotionSatisfiedBy: string | null }, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null, after: { __typename?: 'AfterStatus', status: string, expiresAt: string | null, reason: string | null, dependencies: Array<{ __typename?: 'Dependency', id: string, state: DeploymentState | null }> } | null, dependents: Array<{ __typename?: 'Dependency', id: string, state: DeploymentState | null }>, exports: Array<{ __typename?: 'Export', name: string, format: string, value: string, public: boolean }>, steps: Array<{ __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, rollback: { __typename?: 'Rollback', state: RollbackState, steps: Array<{ __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> }> } | null, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, targetsTotal: number, targetsDone: number, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, targets: Array<string>, deferredUntil: string | null, batches: Array<{ __typename?: 'RolloutBatchStatus', index: number, targets: Array<string>, state: RolloutStepState, startedAt: string | null, finishedAt: string | null }>, bake: { __typename?: 'RolloutBake', seconds: number, until: string | null } | null, gate: { __typename?: 'RolloutGate', state: GateResult, at: string | null, checks: Array<{ __typename?: 'RolloutGateCheck', name: string, state: GateResult, value: number | null, detail: string }> } | null, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, roles: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean }> } | null }>, targets: Array<{ __typename?: 'RolloutTarget', name: string, outcome: TargetOutcome, wave: string | null, batch: number | null, state: RolloutStepState, release: string | null, error: string | null, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, pause: { __typename?: 'RolloutPause', step: string, reason: string, since: string, until: string, by: string | null, mayResume: Array<string> } | null, request: { __typename?: 'RolloutRequest', action: RolloutAction, by: string, at: string } | null } | null }, logLines: Array<{ __typename?: 'LogLine', seq: number, time: string, step: string | null, level: string, message: string }> } };

export type DependentsFeedSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type DependentsFeedSubscription = { __typename?: 'Subscription', activity: { __typename?: 'DeploymentEvent', deployment: { __typename?: 'Deployment', id: string, state: DeploymentState, after: { __typename?: 'AfterStatus', dependencies: Array<{ __typename?: 'Dependency', id: string }> } | null } } };

export type CancelDeploymentMutationVariables = Exact<{
  id: Scalars['ID']['input'];
}>;


export type CancelDeploymentMutation = { __typename?: 'Mutation', cancelDeployment: { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, release: string | null, sha256: string | null, currentStep: string | null, error: string | null, cancelRequested: boolean, cancelledBy: string | null, canCancel: boolean, canApprove: boolean, canPauseRollout: boolean, canResumeRollout: boolean, canAbortRollout: boolean, artifact: { __typename?: 'Artifact', type: string, name: string, version: string, source: string, pinnedSha256: string | null }, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }>, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, type: string, specHash: string | null, maxRetries: number, timeoutSeconds: number, mandatory: boolean }> }, effective: { __typename?: 'EffectiveDeploy', plugin: string, healthChecks: Array<string>, secretNames: Array<string>, configSource: string | null, configRevision: string | null, targets: Array<{ __typename?: 'Target', name: string, host: string | null, port: number | null, user: string | null, path: string | null }>, rollback: { __typename?: 'RollbackPolicy', enabled: boolean, on: Array<string> } }, decision: { __typename?: 'GovernanceDecision', rule: string | null, requires: Array<string>, reason: string | null, approvalsRequired: number | null, approvalGroups: Array<string> | null, change: string | null, freeze: string | null, promotionFrom: string | null, promotionSatisfiedBy: string | null }, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean, comment: string, time: string }> } | null, after: { __typename?: 'AfterStatus', status: string, expiresAt: string | null, reason: string | null, dependencies: Array<{ __typename?: 'Dependency', id: string, state: DeploymentState | null }> } | null, dependents: Array<{ __typename?: 'Dependency', id: string, state: DeploymentState | null }>, exports: Array<{ __typename?: 'Export', name: string, format: string, value: string, public: boolean }>, steps: Array<{ __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, rollback: { __typename?: 'Rollback', state: RollbackState, steps: Array<{ __typename?: 'Step', name: string, kind: StepKind, pass: number, batch: number, target: string | null, position: number, type: string, state: StepState, attempts: number, startedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, output: Array<{ __typename?: 'KeyValue', key: string, value: string }> }> } | null, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, targetsTotal: number, targetsDone: number, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, targets: Array<string>, deferredUntil: string | null, batches: Array<{ __typename?: 'RolloutBatchStatus', index: number, targets: Array<string>, state: RolloutStepState, startedAt: string | null, finishedAt: string | null }>, bake: { __typename?: 'RolloutBake', seconds: number, until: string | null } | null, gate: { __typename?: 'RolloutGate', state: GateResult, at: string | null, checks: Array<{ __typename?: 'RolloutGateCheck', name: string, state: GateResult, value: number | null, detail: string }> } | null, approval: { __typename?: 'ApprovalStatus', status: string, required: number, groups: Array<string>, roles: Array<string>, expiresAt: string | null, approvals: Array<{ __typename?: 'Approval', identity: string, approved: boolean }> } | null }>, targets: Array<{ __typename?: 'RolloutTarget', name: string, outcome: TargetOutcome, wave: string | null, batch: number | null, state: RolloutStepState, release: string | null, error: string | null, labels: Array<{ __typename?: 'KeyValue', key: string, value: string }> }>, pause: { __typename?: 'RolloutPause', step: string, reason: string, since: string, until: string, by: string | null, mayResume: Array<string> } | null, request: { __typename?: 'RolloutRequest', action: RolloutAction, by: string, at: string } | null } | null } };

export type DeploymentsPageQueryVariables = Exact<{
  filter: InputMaybe<DeploymentFilter>;
  first: InputMaybe<Scalars['Int']['input']>;
  after: InputMaybe<Scalars['String']['input']>;
}>;


export type DeploymentsPageQuery = { __typename?: 'Query', deployments: { __typename?: 'DeploymentConnection', edges: Array<{ __typename?: 'DeploymentEdge', cursor: string, node: { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, dryRun: boolean, currentStep: string | null, error: string | null, artifact: { __typename?: 'Artifact', name: string, version: string } } }>, pageInfo: { __typename?: 'PageInfo', hasNextPage: boolean, endCursor: string | null } } };

export type DeploymentsSuggestionsQueryVariables = Exact<{ [key: string]: never; }>;


export type DeploymentsSuggestionsQuery = { __typename?: 'Query', inventory: Array<{ __typename?: 'InventoryEntry', tenant: string, application: string, environment: string }> };

export type DoraPageFiguresFragment = { __typename?: 'DoraFigures', deploymentFrequency: { __typename?: 'DoraFrequency', deploys: number, perWeek: number, band: DoraBand, deploymentIds: Array<string> }, leadTime: { __typename?: 'DoraMedian', seconds: number | null, samples: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> }, changeFailRate: { __typename?: 'DoraRate', count: number, of: number, rate: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> }, recoveryTime: { __typename?: 'DoraRecovery', seconds: number | null, samples: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string>, unrecoveredIds: Array<string> }, reworkRate: { __typename?: 'DoraRate', count: number, of: number, rate: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> } };

export type DoraPageQueryVariables = Exact<{
  filter: InputMaybe<DoraFilter>;
}>;


export type DoraPageQuery = { __typename?: 'Query', doraMetrics: { __typename?: 'DoraReport', from: string, to: string, weeks: Array<{ __typename?: 'DoraWeek', year: number, week: number, start: string, figures: { __typename?: 'DoraFigures', deploymentFrequency: { __typename?: 'DoraFrequency', deploys: number, perWeek: number, band: DoraBand, deploymentIds: Array<string> }, leadTime: { __typename?: 'DoraMedian', seconds: number | null, samples: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> }, changeFailRate: { __typename?: 'DoraRate', count: number, of: number, rate: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> }, recoveryTime: { __typename?: 'DoraRecovery', seconds: number | null, samples: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string>, unrecoveredIds: Array<string> }, reworkRate: { __typename?: 'DoraRate', count: number, of: number, rate: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> } } }>, total: { __typename?: 'DoraFigures', deploymentFrequency: { __typename?: 'DoraFrequency', deploys: number, perWeek: number, band: DoraBand, deploymentIds: Array<string> }, leadTime: { __typename?: 'DoraMedian', seconds: number | null, samples: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> }, changeFailRate: { __typename?: 'DoraRate', count: number, of: number, rate: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> }, recoveryTime: { __typename?: 'DoraRecovery', seconds: number | null, samples: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string>, unrecoveredIds: Array<string> }, reworkRate: { __typename?: 'DoraRate', count: number, of: number, rate: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> } } } };

export type InventoryCellFragment = { __typename?: 'InventoryEntry', tenant: string, application: string, environment: string, deploymentId: string | null, sha256: string | null, deployedAt: string | null, deployedBy: string | null, artifact: { __typename?: 'Artifact', name: string, version: string } | null, previous: { __typename?: 'PreviousRelease', deploymentId: string, deployedAt: string, artifact: { __typename?: 'Artifact', name: string, version: string } } | null, lastFailure: { __typename?: 'LastFailure', deploymentId: string, step: string | null, error: string | null, finishedAt: string, rollback: RollbackState | null } | null };

export type EnvironmentsPageQueryVariables = Exact<{ [key: string]: never; }>;


export type EnvironmentsPageQuery = { __typename?: 'Query', inventory: Array<{ __typename?: 'InventoryEntry', tenant: string, application: string, environment: string, deploymentId: string | null, sha256: string | null, deployedAt: string | null, deployedBy: string | null, artifact: { __typename?: 'Artifact', name: string, version: string } | null, previous: { __typename?: 'PreviousRelease', deploymentId: string, deployedAt: string, artifact: { __typename?: 'Artifact', name: string, version: string } } | null, lastFailure: { __typename?: 'LastFailure', deploymentId: string, step: string | null, error: string | null, finishedAt: string, rollback: RollbackState | null } | null }>, activity: Array<{ __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, updatedAt: string, currentStep: string | null, artifact: { __typename?: 'Artifact', version: string } }> };

export type EnvironmentInventoryQueryVariables = Exact<{ [key: string]: never; }>;


export type EnvironmentInventoryQuery = { __typename?: 'Query', inventory: Array<{ __typename?: 'InventoryEntry', tenant: string, application: string, environment: string, deploymentId: string | null, sha256: string | null, deployedAt: string | null, deployedBy: string | null, artifact: { __typename?: 'Artifact', name: string, version: string } | null, previous: { __typename?: 'PreviousRelease', deploymentId: string, deployedAt: string, artifact: { __typename?: 'Artifact', name: string, version: string } } | null, lastFailure: { __typename?: 'LastFailure', deploymentId: string, step: string | null, error: string | null, finishedAt: string, rollback: RollbackState | null } | null }> };

export type InFlightFragment = { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, updatedAt: string, currentStep: string | null, artifact: { __typename?: 'Artifact', version: string } };

export type EnvironmentsFeedSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type EnvironmentsFeedSubscription = { __typename?: 'Subscription', activity: { __typename?: 'DeploymentEvent', kind: string, deployment: { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, updatedAt: string, currentStep: string | null, artifact: { __typename?: 'Artifact', version: string } } } };

export type FreezeWindowViewFragment = { __typename?: 'FreezeWindow', rule: string, start: string, end: string, recurring: boolean, cron: string | null, timeZone: string | null };

export type FreezeCalendarQueryVariables = Exact<{
  tenant: InputMaybe<Scalars['String']['input']>;
  application: Scalars['String']['input'];
  environment: Scalars['String']['input'];
  to: InputMaybe<Scalars['Time']['input']>;
}>;


export type FreezeCalendarQuery = { __typename?: 'Query', freezeCalendar: { __typename?: 'FreezeCalendar', from: string, to: string, windows: Array<{ __typename?: 'FreezeWindow', rule: string, start: string, end: string, recurring: boolean, cron: string | null, timeZone: string | null }> } };

export type EnvironmentsFreezesQueryVariables = Exact<{
  environments: Array<EnvironmentRef> | EnvironmentRef;
}>;


export type EnvironmentsFreezesQuery = { __typename?: 'Query', freezeCalendars: Array<{ __typename?: 'EnvironmentFreezeCalendar', tenant: string, application: string, environment: string, calendar: { __typename?: 'FreezeCalendar', from: string, to: string, windows: Array<{ __typename?: 'FreezeWindow', rule: string, start: string, end: string, recurring: boolean, cron: string | null, timeZone: string | null }> } | null }> };

export type ReleaseViewFragment = { __typename?: 'Release', id: string, state: ReleaseState, onFailure: string, requester: string, createdAt: string, finishedAt: string | null, error: string | null, deploys: Array<{ __typename?: 'ReleaseDeploy', name: string, deploymentId: string, state: DeploymentState | null, error: string | null, after: Array<string>, rollbackState: string | null, rollbackDeploymentId: string | null, rollbackError: string | null, deployment: { __typename?: 'Deployment', id: string, application: string, environment: string, updatedAt: string, currentStep: string | null, artifact: { __typename?: 'Artifact', version: string }, exports: Array<{ __typename?: 'Export', name: string, format: string, value: string }>, imports: Array<{ __typename?: 'DeploymentImport', name: string, deploymentId: string | null, exports: Array<string> }> } | null }>, edges: Array<{ __typename?: 'ReleaseEdge', from: string, to: string }> };

export type ReleasesPageQueryVariables = Exact<{
  first: Scalars['Int']['input'];
}>;


export type ReleasesPageQuery = { __typename?: 'Query', releases: { __typename?: 'ReleaseConnection', nodes: Array<{ __typename?: 'Release', id: string, state: ReleaseState, onFailure: string, requester: string, createdAt: string, finishedAt: string | null, error: string | null, deploys: Array<{ __typename?: 'ReleaseDeploy', name: string, state: DeploymentState | null }> }> } };

export type ReleasePageQueryVariables = Exact<{
  id: Scalars['ID']['input'];
}>;


export type ReleasePageQuery = { __typename?: 'Query', release: { __typename?: 'Release', id: string, state: ReleaseState, onFailure: string, requester: string, createdAt: string, finishedAt: string | null, error: string | null, deploys: Array<{ __typename?: 'ReleaseDeploy', name: string, deploymentId: string, state: DeploymentState | null, error: string | null, after: Array<string>, rollbackState: string | null, rollbackDeploymentId: string | null, rollbackError: string | null, deployment: { __typename?: 'Deployment', id: string, application: string, environment: string, updatedAt: string, currentStep: string | null, artifact: { __typename?: 'Artifact', version: string }, exports: Array<{ __typename?: 'Export', name: string, format: string, value: string }>, imports: Array<{ __typename?: 'DeploymentImport', name: string, deploymentId: string | null, exports: Array<string> }> } | null }>, edges: Array<{ __typename?: 'ReleaseEdge', from: string, to: string }> } | null };

export type ReleaseLiveSubscriptionVariables = Exact<{
  id: Scalars['ID']['input'];
}>;


export type ReleaseLiveSubscription = { __typename?: 'Subscription', releaseEvents: { __typename?: 'Release', id: string, state: ReleaseState, onFailure: string, requester: string, createdAt: string, finishedAt: string | null, error: string | null, deploys: Array<{ __typename?: 'ReleaseDeploy', name: string, deploymentId: string, state: DeploymentState | null, error: string | null, after: Array<string>, rollbackState: string | null, rollbackDeploymentId: string | null, rollbackError: string | null, deployment: { __typename?: 'Deployment', id: string, application: string, environment: string, updatedAt: string, currentStep: string | null, artifact: { __typename?: 'Artifact', version: string }, exports: Array<{ __typename?: 'Export', name: string, format: string, value: string }>, imports: Array<{ __typename?: 'DeploymentImport', name: string, deploymentId: string | null, exports: Array<string> }> } | null }>, edges: Array<{ __typename?: 'ReleaseEdge', from: string, to: string }> } };

export type WallDeploymentFragment = { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, currentStep: string | null, error: string | null, artifact: { __typename?: 'Artifact', version: string }, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, maxRetries: number }> }, steps: Array<{ __typename?: 'Step', name: string, state: StepState, kind: StepKind, position: number, attempts: number, error: string | null }>, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, targetsTotal: number, targetsDone: number, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, deferredUntil: string | null, bake: { __typename?: 'RolloutBake', until: string | null } | null, batches: Array<{ __typename?: 'RolloutBatchStatus', state: RolloutStepState }> }>, pause: { __typename?: 'RolloutPause', until: string } | null } | null };

export type WallQueryVariables = Exact<{
  failedStates: InputMaybe<Array<DeploymentState> | DeploymentState>;
  since: InputMaybe<Scalars['Time']['input']>;
}>;


export type WallQuery = { __typename?: 'Query', activity: Array<{ __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, currentStep: string | null, error: string | null, artifact: { __typename?: 'Artifact', version: string }, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, maxRetries: number }> }, steps: Array<{ __typename?: 'Step', name: string, state: StepState, kind: StepKind, position: number, attempts: number, error: string | null }>, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, targetsTotal: number, targetsDone: number, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, deferredUntil: string | null, bake: { __typename?: 'RolloutBake', until: string | null } | null, batches: Array<{ __typename?: 'RolloutBatchStatus', state: RolloutStepState }> }>, pause: { __typename?: 'RolloutPause', until: string } | null } | null }>, failed: { __typename?: 'DeploymentConnection', nodes: Array<{ __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, currentStep: string | null, error: string | null, artifact: { __typename?: 'Artifact', version: string }, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, maxRetries: number }> }, steps: Array<{ __typename?: 'Step', name: string, state: StepState, kind: StepKind, position: number, attempts: number, error: string | null }>, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, targetsTotal: number, targetsDone: number, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, deferredUntil: string | null, bake: { __typename?: 'RolloutBake', until: string | null } | null, batches: Array<{ __typename?: 'RolloutBatchStatus', state: RolloutStepState }> }>, pause: { __typename?: 'RolloutPause', until: string } | null } | null }> }, inService: Array<{ __typename?: 'InventoryEntry', tenant: string, application: string, environment: string, deployedAt: string | null }> };

export type WallFeedSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type WallFeedSubscription = { __typename?: 'Subscription', activity: { __typename?: 'DeploymentEvent', kind: string, deployment: { __typename?: 'Deployment', id: string, tenant: string, application: string, environment: string, state: DeploymentState, requester: string, createdAt: string, startedAt: string | null, finishedAt: string | null, updatedAt: string, startAt: string | null, dryRun: boolean, currentStep: string | null, error: string | null, artifact: { __typename?: 'Artifact', version: string }, plan: { __typename?: 'Plan', steps: Array<{ __typename?: 'PlannedStep', name: string, maxRetries: number }> }, steps: Array<{ __typename?: 'Step', name: string, state: StepState, kind: StepKind, position: number, attempts: number, error: string | null }>, rollout: { __typename?: 'Rollout', state: RolloutState, currentWave: string | null, targetsTotal: number, targetsDone: number, waves: Array<{ __typename?: 'RolloutWave', name: string, state: WaveState, deferredUntil: string | null, bake: { __typename?: 'RolloutBake', until: string | null } | null, batches: Array<{ __typename?: 'RolloutBatchStatus', state: RolloutStepState }> }>, pause: { __typename?: 'RolloutPause', until: string } | null } | null } } };

export type WallDoraQueryVariables = Exact<{
  current: InputMaybe<DoraFilter>;
  previous: InputMaybe<DoraFilter>;
}>;


export type WallDoraQuery = { __typename?: 'Query', current: { __typename?: 'DoraReport', range: { __typename?: 'DoraFigures', deploymentFrequency: { __typename?: 'DoraFrequency', deploys: number, perWeek: number, band: DoraBand, deploymentIds: Array<string> }, leadTime: { __typename?: 'DoraMedian', seconds: number | null, samples: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> }, changeFailRate: { __typename?: 'DoraRate', count: number, of: number, rate: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> }, recoveryTime: { __typename?: 'DoraRecovery', seconds: number | null, samples: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string>, unrecoveredIds: Array<string> }, reworkRate: { __typename?: 'DoraRate', count: number, of: number, rate: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> } } }, previous: { __typename?: 'DoraReport', range: { __typename?: 'DoraFigures', deploymentFrequency: { __typename?: 'DoraFrequency', deploys: number, perWeek: number, band: DoraBand, deploymentIds: Array<string> }, leadTime: { __typename?: 'DoraMedian', seconds: number | null, samples: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> }, changeFailRate: { __typename?: 'DoraRate', count: number, of: number, rate: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> }, recoveryTime: { __typename?: 'DoraRecovery', seconds: number | null, samples: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string>, unrecoveredIds: Array<string> }, reworkRate: { __typename?: 'DoraRate', count: number, of: number, rate: number, enoughData: boolean, band: DoraBand | null, deploymentIds: Array<string> } } } };

export const ActivityDeploymentFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ActivityDeployment"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startAt"}},{"kind":"Field","name":{"kind":"Name","value":"dryRun"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"plan"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"maxRetries"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}}]}}]}}]} as unknown as DocumentNode<ActivityDeploymentFragment, unknown>;
export const ApprovalViewFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ApprovalView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"decision"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"requires"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"approvalsRequired"}},{"kind":"Field","name":{"kind":"Name","value":"approvalGroups"}},{"kind":"Field","name":{"kind":"Name","value":"change"}},{"kind":"Field","name":{"kind":"Name","value":"freeze"}},{"kind":"Field","name":{"kind":"Name","value":"promotionFrom"}},{"kind":"Field","name":{"kind":"Name","value":"promotionSatisfiedBy"}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"canApprove"}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<ApprovalViewFragment, unknown>;
export const StepViewFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"StepView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Step"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"pass"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"target"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"durationMs"}},{"kind":"Field","name":{"kind":"Name","value":"output"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}}]} as unknown as DocumentNode<StepViewFragment, unknown>;
export const RolloutViewFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"RolloutView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Rollout"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"targetsTotal"}},{"kind":"Field","name":{"kind":"Name","value":"targetsDone"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"deferredUntil"}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}}]}},{"kind":"Field","name":{"kind":"Name","value":"bake"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seconds"}},{"kind":"Field","name":{"kind":"Name","value":"until"}}]}},{"kind":"Field","name":{"kind":"Name","value":"gate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"checks"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"detail"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}},{"kind":"Field","name":{"kind":"Name","value":"wave"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"Field","name":{"kind":"Name","value":"pause"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"step"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"until"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"mayResume"}}]}},{"kind":"Field","name":{"kind":"Name","value":"request"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"action"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"at"}}]}}]}}]} as unknown as DocumentNode<RolloutViewFragment, unknown>;
export const DeploymentViewFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"DeploymentView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startAt"}},{"kind":"Field","name":{"kind":"Name","value":"dryRun"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"pinnedSha256"}}]}},{"kind":"Field","name":{"kind":"Name","value":"sha256"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"plan"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"specHash"}},{"kind":"Field","name":{"kind":"Name","value":"maxRetries"}},{"kind":"Field","name":{"kind":"Name","value":"timeoutSeconds"}},{"kind":"Field","name":{"kind":"Name","value":"mandatory"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"effective"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"plugin"}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"host"}},{"kind":"Field","name":{"kind":"Name","value":"port"}},{"kind":"Field","name":{"kind":"Name","value":"user"}},{"kind":"Field","name":{"kind":"Name","value":"path"}}]}},{"kind":"Field","name":{"kind":"Name","value":"healthChecks"}},{"kind":"Field","name":{"kind":"Name","value":"secretNames"}},{"kind":"Field","name":{"kind":"Name","value":"configSource"}},{"kind":"Field","name":{"kind":"Name","value":"configRevision"}},{"kind":"Field","name":{"kind":"Name","value":"rollback"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"enabled"}},{"kind":"Field","name":{"kind":"Name","value":"on"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"decision"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"requires"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"approvalsRequired"}},{"kind":"Field","name":{"kind":"Name","value":"approvalGroups"}},{"kind":"Field","name":{"kind":"Name","value":"change"}},{"kind":"Field","name":{"kind":"Name","value":"freeze"}},{"kind":"Field","name":{"kind":"Name","value":"promotionFrom"}},{"kind":"Field","name":{"kind":"Name","value":"promotionSatisfiedBy"}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"after"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"dependencies"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"dependents"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}},{"kind":"Field","name":{"kind":"Name","value":"exports"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"format"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"public"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"cancelRequested"}},{"kind":"Field","name":{"kind":"Name","value":"cancelledBy"}},{"kind":"Field","name":{"kind":"Name","value":"canCancel"}},{"kind":"Field","name":{"kind":"Name","value":"canApprove"}},{"kind":"Field","name":{"kind":"Name","value":"canPauseRollout"}},{"kind":"Field","name":{"kind":"Name","value":"canResumeRollout"}},{"kind":"Field","name":{"kind":"Name","value":"canAbortRollout"}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"StepView"}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollback"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"StepView"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"RolloutView"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"StepView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Step"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"pass"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"target"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"durationMs"}},{"kind":"Field","name":{"kind":"Name","value":"output"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"RolloutView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Rollout"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"targetsTotal"}},{"kind":"Field","name":{"kind":"Name","value":"targetsDone"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"deferredUntil"}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}}]}},{"kind":"Field","name":{"kind":"Name","value":"bake"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seconds"}},{"kind":"Field","name":{"kind":"Name","value":"until"}}]}},{"kind":"Field","name":{"kind":"Name","value":"gate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"checks"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"detail"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}},{"kind":"Field","name":{"kind":"Name","value":"wave"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"Field","name":{"kind":"Name","value":"pause"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"step"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"until"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"mayResume"}}]}},{"kind":"Field","name":{"kind":"Name","value":"request"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"action"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"at"}}]}}]}}]} as unknown as DocumentNode<DeploymentViewFragment, unknown>;
export const LogLineViewFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"LogLineView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LogLine"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"time"}},{"kind":"Field","name":{"kind":"Name","value":"step"}},{"kind":"Field","name":{"kind":"Name","value":"level"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]} as unknown as DocumentNode<LogLineViewFragment, unknown>;
export const DoraPageFiguresFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"DoraPageFigures"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"DoraFigures"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentFrequency"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploys"}},{"kind":"Field","name":{"kind":"Name","value":"perWeek"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}}]}},{"kind":"Field","name":{"kind":"Name","value":"leadTime"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seconds"}},{"kind":"Field","name":{"kind":"Name","value":"samples"}},{"kind":"Field","name":{"kind":"Name","value":"enoughData"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}}]}},{"kind":"Field","name":{"kind":"Name","value":"changeFailRate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"of"}},{"kind":"Field","name":{"kind":"Name","value":"rate"}},{"kind":"Field","name":{"kind":"Name","value":"enoughData"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}}]}},{"kind":"Field","name":{"kind":"Name","value":"recoveryTime"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seconds"}},{"kind":"Field","name":{"kind":"Name","value":"samples"}},{"kind":"Field","name":{"kind":"Name","value":"enoughData"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}},{"kind":"Field","name":{"kind":"Name","value":"unrecoveredIds"}}]}},{"kind":"Field","name":{"kind":"Name","value":"reworkRate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"of"}},{"kind":"Field","name":{"kind":"Name","value":"rate"}},{"kind":"Field","name":{"kind":"Name","value":"enoughData"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}}]}}]}}]} as unknown as DocumentNode<DoraPageFiguresFragment, unknown>;
export const InventoryCellFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"InventoryCell"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"InventoryEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"sha256"}},{"kind":"Field","name":{"kind":"Name","value":"deployedAt"}},{"kind":"Field","name":{"kind":"Name","value":"deployedBy"}},{"kind":"Field","name":{"kind":"Name","value":"previous"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"deployedAt"}}]}},{"kind":"Field","name":{"kind":"Name","value":"lastFailure"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"step"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"rollback"}}]}}]}}]} as unknown as DocumentNode<InventoryCellFragment, unknown>;
export const InFlightFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"InFlight"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}}]}}]} as unknown as DocumentNode<InFlightFragment, unknown>;
export const FreezeWindowViewFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"FreezeWindowView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"FreezeWindow"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"start"}},{"kind":"Field","name":{"kind":"Name","value":"end"}},{"kind":"Field","name":{"kind":"Name","value":"recurring"}},{"kind":"Field","name":{"kind":"Name","value":"cron"}},{"kind":"Field","name":{"kind":"Name","value":"timeZone"}}]}}]} as unknown as DocumentNode<FreezeWindowViewFragment, unknown>;
export const ReleaseViewFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ReleaseView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Release"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"onFailure"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"deploys"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"after"}},{"kind":"Field","name":{"kind":"Name","value":"rollbackState"}},{"kind":"Field","name":{"kind":"Name","value":"rollbackDeploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"rollbackError"}},{"kind":"Field","name":{"kind":"Name","value":"deployment"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"exports"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"format"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"imports"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"exports"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"from"}},{"kind":"Field","name":{"kind":"Name","value":"to"}}]}}]}}]} as unknown as DocumentNode<ReleaseViewFragment, unknown>;
export const WallDeploymentFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WallDeployment"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startAt"}},{"kind":"Field","name":{"kind":"Name","value":"dryRun"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"plan"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"maxRetries"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"targetsTotal"}},{"kind":"Field","name":{"kind":"Name","value":"targetsDone"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"deferredUntil"}},{"kind":"Field","name":{"kind":"Name","value":"bake"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"until"}}]}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pause"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"until"}}]}}]}}]}}]} as unknown as DocumentNode<WallDeploymentFragment, unknown>;
export const AppViewerDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"AppViewer"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"viewer"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"subject"}}]}}]}}]} as unknown as DocumentNode<AppViewerQuery, AppViewerQueryVariables>;
export const ActivityPageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ActivityPage"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"activity"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"200"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ActivityDeployment"}}]}},{"kind":"Field","alias":{"kind":"Name","value":"recent"},"name":{"kind":"Name","value":"deployments"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"25"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ActivityDeployment"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ActivityDeployment"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startAt"}},{"kind":"Field","name":{"kind":"Name","value":"dryRun"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"plan"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"maxRetries"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}}]}}]}}]} as unknown as DocumentNode<ActivityPageQuery, ActivityPageQueryVariables>;
export const ActivityFeedDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"ActivityFeed"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"activity"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"deployment"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ActivityDeployment"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ActivityDeployment"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startAt"}},{"kind":"Field","name":{"kind":"Name","value":"dryRun"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"plan"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"maxRetries"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}}]}}]}}]} as unknown as DocumentNode<ActivityFeedSubscription, ActivityFeedSubscriptionVariables>;
export const PendingApprovalsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"PendingApprovals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"pendingApprovals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ApprovalView"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ApprovalView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"decision"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"requires"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"approvalsRequired"}},{"kind":"Field","name":{"kind":"Name","value":"approvalGroups"}},{"kind":"Field","name":{"kind":"Name","value":"change"}},{"kind":"Field","name":{"kind":"Name","value":"freeze"}},{"kind":"Field","name":{"kind":"Name","value":"promotionFrom"}},{"kind":"Field","name":{"kind":"Name","value":"promotionSatisfiedBy"}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"canApprove"}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<PendingApprovalsQuery, PendingApprovalsQueryVariables>;
export const PendingApprovalsLiveDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"PendingApprovalsLive"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"pendingApprovals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ApprovalView"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ApprovalView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"decision"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"requires"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"approvalsRequired"}},{"kind":"Field","name":{"kind":"Name","value":"approvalGroups"}},{"kind":"Field","name":{"kind":"Name","value":"change"}},{"kind":"Field","name":{"kind":"Name","value":"freeze"}},{"kind":"Field","name":{"kind":"Name","value":"promotionFrom"}},{"kind":"Field","name":{"kind":"Name","value":"promotionSatisfiedBy"}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"canApprove"}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<PendingApprovalsLiveSubscription, PendingApprovalsLiveSubscriptionVariables>;
export const ApproveDeploymentDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"ApproveDeployment"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"comment"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"approveDeployment"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"comment"},"value":{"kind":"Variable","name":{"kind":"Name","value":"comment"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ApprovalView"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ApprovalView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"decision"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"requires"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"approvalsRequired"}},{"kind":"Field","name":{"kind":"Name","value":"approvalGroups"}},{"kind":"Field","name":{"kind":"Name","value":"change"}},{"kind":"Field","name":{"kind":"Name","value":"freeze"}},{"kind":"Field","name":{"kind":"Name","value":"promotionFrom"}},{"kind":"Field","name":{"kind":"Name","value":"promotionSatisfiedBy"}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"canApprove"}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<ApproveDeploymentMutation, ApproveDeploymentMutationVariables>;
export const RejectDeploymentDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"RejectDeployment"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"comment"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rejectDeployment"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"comment"},"value":{"kind":"Variable","name":{"kind":"Name","value":"comment"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ApprovalView"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ApprovalView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"decision"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"requires"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"approvalsRequired"}},{"kind":"Field","name":{"kind":"Name","value":"approvalGroups"}},{"kind":"Field","name":{"kind":"Name","value":"change"}},{"kind":"Field","name":{"kind":"Name","value":"freeze"}},{"kind":"Field","name":{"kind":"Name","value":"promotionFrom"}},{"kind":"Field","name":{"kind":"Name","value":"promotionSatisfiedBy"}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"canApprove"}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<RejectDeploymentMutation, RejectDeploymentMutationVariables>;
export const AuditPageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"AuditPage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"filter"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"AuditFilter"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"auditEntries"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"filter"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"time"}},{"kind":"Field","name":{"kind":"Name","value":"actor"}},{"kind":"Field","name":{"kind":"Name","value":"action"}},{"kind":"Field","name":{"kind":"Name","value":"target"}},{"kind":"Field","name":{"kind":"Name","value":"details"}},{"kind":"Field","name":{"kind":"Name","value":"resources"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]}}]}}]} as unknown as DocumentNode<AuditPageQuery, AuditPageQueryVariables>;
export const PauseRolloutDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"PauseRollout"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"reason"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"pauseRollout"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"reason"},"value":{"kind":"Variable","name":{"kind":"Name","value":"reason"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"DeploymentView"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"StepView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Step"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"pass"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"target"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"durationMs"}},{"kind":"Field","name":{"kind":"Name","value":"output"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"RolloutView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Rollout"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"targetsTotal"}},{"kind":"Field","name":{"kind":"Name","value":"targetsDone"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"deferredUntil"}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}}]}},{"kind":"Field","name":{"kind":"Name","value":"bake"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seconds"}},{"kind":"Field","name":{"kind":"Name","value":"until"}}]}},{"kind":"Field","name":{"kind":"Name","value":"gate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"checks"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"detail"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}},{"kind":"Field","name":{"kind":"Name","value":"wave"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"Field","name":{"kind":"Name","value":"pause"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"step"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"until"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"mayResume"}}]}},{"kind":"Field","name":{"kind":"Name","value":"request"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"action"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"at"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"DeploymentView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startAt"}},{"kind":"Field","name":{"kind":"Name","value":"dryRun"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"pinnedSha256"}}]}},{"kind":"Field","name":{"kind":"Name","value":"sha256"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"plan"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"specHash"}},{"kind":"Field","name":{"kind":"Name","value":"maxRetries"}},{"kind":"Field","name":{"kind":"Name","value":"timeoutSeconds"}},{"kind":"Field","name":{"kind":"Name","value":"mandatory"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"effective"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"plugin"}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"host"}},{"kind":"Field","name":{"kind":"Name","value":"port"}},{"kind":"Field","name":{"kind":"Name","value":"user"}},{"kind":"Field","name":{"kind":"Name","value":"path"}}]}},{"kind":"Field","name":{"kind":"Name","value":"healthChecks"}},{"kind":"Field","name":{"kind":"Name","value":"secretNames"}},{"kind":"Field","name":{"kind":"Name","value":"configSource"}},{"kind":"Field","name":{"kind":"Name","value":"configRevision"}},{"kind":"Field","name":{"kind":"Name","value":"rollback"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"enabled"}},{"kind":"Field","name":{"kind":"Name","value":"on"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"decision"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"requires"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"approvalsRequired"}},{"kind":"Field","name":{"kind":"Name","value":"approvalGroups"}},{"kind":"Field","name":{"kind":"Name","value":"change"}},{"kind":"Field","name":{"kind":"Name","value":"freeze"}},{"kind":"Field","name":{"kind":"Name","value":"promotionFrom"}},{"kind":"Field","name":{"kind":"Name","value":"promotionSatisfiedBy"}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"after"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"dependencies"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"dependents"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}},{"kind":"Field","name":{"kind":"Name","value":"exports"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"format"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"public"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"cancelRequested"}},{"kind":"Field","name":{"kind":"Name","value":"cancelledBy"}},{"kind":"Field","name":{"kind":"Name","value":"canCancel"}},{"kind":"Field","name":{"kind":"Name","value":"canApprove"}},{"kind":"Field","name":{"kind":"Name","value":"canPauseRollout"}},{"kind":"Field","name":{"kind":"Name","value":"canResumeRollout"}},{"kind":"Field","name":{"kind":"Name","value":"canAbortRollout"}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"StepView"}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollback"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"StepView"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"RolloutView"}}]}}]}}]} as unknown as DocumentNode<PauseRolloutMutation, PauseRolloutMutationVariables>;
export const ResumeRolloutDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"ResumeRollout"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"comment"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"pause"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"resumeRollout"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"comment"},"value":{"kind":"Variable","name":{"kind":"Name","value":"comment"}}},{"kind":"Argument","name":{"kind":"Name","value":"pause"},"value":{"kind":"Variable","name":{"kind":"Name","value":"pause"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"DeploymentView"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"StepView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Step"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"pass"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"target"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"durationMs"}},{"kind":"Field","name":{"kind":"Name","value":"output"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"RolloutView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Rollout"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"targetsTotal"}},{"kind":"Field","name":{"kind":"Name","value":"targetsDone"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"deferredUntil"}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}}]}},{"kind":"Field","name":{"kind":"Name","value":"bake"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seconds"}},{"kind":"Field","name":{"kind":"Name","value":"until"}}]}},{"kind":"Field","name":{"kind":"Name","value":"gate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"checks"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"detail"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}},{"kind":"Field","name":{"kind":"Name","value":"wave"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"Field","name":{"kind":"Name","value":"pause"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"step"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"until"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"mayResume"}}]}},{"kind":"Field","name":{"kind":"Name","value":"request"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"action"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"at"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"DeploymentView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startAt"}},{"kind":"Field","name":{"kind":"Name","value":"dryRun"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"pinnedSha256"}}]}},{"kind":"Field","name":{"kind":"Name","value":"sha256"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"plan"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"specHash"}},{"kind":"Field","name":{"kind":"Name","value":"maxRetries"}},{"kind":"Field","name":{"kind":"Name","value":"timeoutSeconds"}},{"kind":"Field","name":{"kind":"Name","value":"mandatory"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"effective"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"plugin"}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"host"}},{"kind":"Field","name":{"kind":"Name","value":"port"}},{"kind":"Field","name":{"kind":"Name","value":"user"}},{"kind":"Field","name":{"kind":"Name","value":"path"}}]}},{"kind":"Field","name":{"kind":"Name","value":"healthChecks"}},{"kind":"Field","name":{"kind":"Name","value":"secretNames"}},{"kind":"Field","name":{"kind":"Name","value":"configSource"}},{"kind":"Field","name":{"kind":"Name","value":"configRevision"}},{"kind":"Field","name":{"kind":"Name","value":"rollback"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"enabled"}},{"kind":"Field","name":{"kind":"Name","value":"on"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"decision"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"requires"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"approvalsRequired"}},{"kind":"Field","name":{"kind":"Name","value":"approvalGroups"}},{"kind":"Field","name":{"kind":"Name","value":"change"}},{"kind":"Field","name":{"kind":"Name","value":"freeze"}},{"kind":"Field","name":{"kind":"Name","value":"promotionFrom"}},{"kind":"Field","name":{"kind":"Name","value":"promotionSatisfiedBy"}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"after"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"dependencies"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"dependents"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}},{"kind":"Field","name":{"kind":"Name","value":"exports"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"format"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"public"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"cancelRequested"}},{"kind":"Field","name":{"kind":"Name","value":"cancelledBy"}},{"kind":"Field","name":{"kind":"Name","value":"canCancel"}},{"kind":"Field","name":{"kind":"Name","value":"canApprove"}},{"kind":"Field","name":{"kind":"Name","value":"canPauseRollout"}},{"kind":"Field","name":{"kind":"Name","value":"canResumeRollout"}},{"kind":"Field","name":{"kind":"Name","value":"canAbortRollout"}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"StepView"}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollback"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"StepView"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"RolloutView"}}]}}]}}]} as unknown as DocumentNode<ResumeRolloutMutation, ResumeRolloutMutationVariables>;
export const AbortRolloutDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"AbortRollout"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"reason"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"abortRollout"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"reason"},"value":{"kind":"Variable","name":{"kind":"Name","value":"reason"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"DeploymentView"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"StepView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Step"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"pass"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"target"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"durationMs"}},{"kind":"Field","name":{"kind":"Name","value":"output"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"RolloutView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Rollout"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"targetsTotal"}},{"kind":"Field","name":{"kind":"Name","value":"targetsDone"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"deferredUntil"}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}}]}},{"kind":"Field","name":{"kind":"Name","value":"bake"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seconds"}},{"kind":"Field","name":{"kind":"Name","value":"until"}}]}},{"kind":"Field","name":{"kind":"Name","value":"gate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"checks"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"detail"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}},{"kind":"Field","name":{"kind":"Name","value":"wave"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"Field","name":{"kind":"Name","value":"pause"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"step"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"until"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"mayResume"}}]}},{"kind":"Field","name":{"kind":"Name","value":"request"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"action"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"at"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"DeploymentView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startAt"}},{"kind":"Field","name":{"kind":"Name","value":"dryRun"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"pinnedSha256"}}]}},{"kind":"Field","name":{"kind":"Name","value":"sha256"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"plan"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"specHash"}},{"kind":"Field","name":{"kind":"Name","value":"maxRetries"}},{"kind":"Field","name":{"kind":"Name","value":"timeoutSeconds"}},{"kind":"Field","name":{"kind":"Name","value":"mandatory"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"effective"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"plugin"}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"host"}},{"kind":"Field","name":{"kind":"Name","value":"port"}},{"kind":"Field","name":{"kind":"Name","value":"user"}},{"kind":"Field","name":{"kind":"Name","value":"path"}}]}},{"kind":"Field","name":{"kind":"Name","value":"healthChecks"}},{"kind":"Field","name":{"kind":"Name","value":"secretNames"}},{"kind":"Field","name":{"kind":"Name","value":"configSource"}},{"kind":"Field","name":{"kind":"Name","value":"configRevision"}},{"kind":"Field","name":{"kind":"Name","value":"rollback"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"enabled"}},{"kind":"Field","name":{"kind":"Name","value":"on"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"decision"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"requires"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"approvalsRequired"}},{"kind":"Field","name":{"kind":"Name","value":"approvalGroups"}},{"kind":"Field","name":{"kind":"Name","value":"change"}},{"kind":"Field","name":{"kind":"Name","value":"freeze"}},{"kind":"Field","name":{"kind":"Name","value":"promotionFrom"}},{"kind":"Field","name":{"kind":"Name","value":"promotionSatisfiedBy"}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"after"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"dependencies"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"dependents"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}},{"kind":"Field","name":{"kind":"Name","value":"exports"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"format"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"public"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"cancelRequested"}},{"kind":"Field","name":{"kind":"Name","value":"cancelledBy"}},{"kind":"Field","name":{"kind":"Name","value":"canCancel"}},{"kind":"Field","name":{"kind":"Name","value":"canApprove"}},{"kind":"Field","name":{"kind":"Name","value":"canPauseRollout"}},{"kind":"Field","name":{"kind":"Name","value":"canResumeRollout"}},{"kind":"Field","name":{"kind":"Name","value":"canAbortRollout"}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"StepView"}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollback"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"StepView"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"RolloutView"}}]}}]}}]} as unknown as DocumentNode<AbortRolloutMutation, AbortRolloutMutationVariables>;
export const DeploymentPageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"DeploymentPage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deployment"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"DeploymentView"}},{"kind":"Field","name":{"kind":"Name","value":"logs"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"IntValue","value":"0"}},{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"IntValue","value":"1000"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"lines"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"LogLineView"}}]}},{"kind":"Field","name":{"kind":"Name","value":"lastSeq"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"StepView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Step"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"pass"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"target"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"durationMs"}},{"kind":"Field","name":{"kind":"Name","value":"output"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"RolloutView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Rollout"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"targetsTotal"}},{"kind":"Field","name":{"kind":"Name","value":"targetsDone"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"deferredUntil"}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}}]}},{"kind":"Field","name":{"kind":"Name","value":"bake"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seconds"}},{"kind":"Field","name":{"kind":"Name","value":"until"}}]}},{"kind":"Field","name":{"kind":"Name","value":"gate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"checks"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"detail"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}},{"kind":"Field","name":{"kind":"Name","value":"wave"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"Field","name":{"kind":"Name","value":"pause"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"step"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"until"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"mayResume"}}]}},{"kind":"Field","name":{"kind":"Name","value":"request"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"action"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"at"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"DeploymentView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startAt"}},{"kind":"Field","name":{"kind":"Name","value":"dryRun"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"pinnedSha256"}}]}},{"kind":"Field","name":{"kind":"Name","value":"sha256"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"plan"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"specHash"}},{"kind":"Field","name":{"kind":"Name","value":"maxRetries"}},{"kind":"Field","name":{"kind":"Name","value":"timeoutSeconds"}},{"kind":"Field","name":{"kind":"Name","value":"mandatory"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"effective"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"plugin"}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"host"}},{"kind":"Field","name":{"kind":"Name","value":"port"}},{"kind":"Field","name":{"kind":"Name","value":"user"}},{"kind":"Field","name":{"kind":"Name","value":"path"}}]}},{"kind":"Field","name":{"kind":"Name","value":"healthChecks"}},{"kind":"Field","name":{"kind":"Name","value":"secretNames"}},{"kind":"Field","name":{"kind":"Name","value":"configSource"}},{"kind":"Field","name":{"kind":"Name","value":"configRevision"}},{"kind":"Field","name":{"kind":"Name","value":"rollback"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"enabled"}},{"kind":"Field","name":{"kind":"Name","value":"on"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"decision"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"requires"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"approvalsRequired"}},{"kind":"Field","name":{"kind":"Name","value":"approvalGroups"}},{"kind":"Field","name":{"kind":"Name","value":"change"}},{"kind":"Field","name":{"kind":"Name","value":"freeze"}},{"kind":"Field","name":{"kind":"Name","value":"promotionFrom"}},{"kind":"Field","name":{"kind":"Name","value":"promotionSatisfiedBy"}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"after"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"dependencies"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"dependents"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}},{"kind":"Field","name":{"kind":"Name","value":"exports"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"format"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"public"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"cancelRequested"}},{"kind":"Field","name":{"kind":"Name","value":"cancelledBy"}},{"kind":"Field","name":{"kind":"Name","value":"canCancel"}},{"kind":"Field","name":{"kind":"Name","value":"canApprove"}},{"kind":"Field","name":{"kind":"Name","value":"canPauseRollout"}},{"kind":"Field","name":{"kind":"Name","value":"canResumeRollout"}},{"kind":"Field","name":{"kind":"Name","value":"canAbortRollout"}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"StepView"}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollback"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"StepView"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"RolloutView"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"LogLineView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LogLine"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"time"}},{"kind":"Field","name":{"kind":"Name","value":"step"}},{"kind":"Field","name":{"kind":"Name","value":"level"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]} as unknown as DocumentNode<DeploymentPageQuery, DeploymentPageQueryVariables>;
export const DeploymentLiveDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"DeploymentLive"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"logsAfter"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentEvents"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"logsAfter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"logsAfter"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"deployment"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"DeploymentView"}}]}},{"kind":"Field","name":{"kind":"Name","value":"logLines"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"LogLineView"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"StepView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Step"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"pass"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"target"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"durationMs"}},{"kind":"Field","name":{"kind":"Name","value":"output"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"RolloutView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Rollout"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"targetsTotal"}},{"kind":"Field","name":{"kind":"Name","value":"targetsDone"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"deferredUntil"}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}}]}},{"kind":"Field","name":{"kind":"Name","value":"bake"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seconds"}},{"kind":"Field","name":{"kind":"Name","value":"until"}}]}},{"kind":"Field","name":{"kind":"Name","value":"gate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"checks"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"detail"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}},{"kind":"Field","name":{"kind":"Name","value":"wave"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"Field","name":{"kind":"Name","value":"pause"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"step"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"until"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"mayResume"}}]}},{"kind":"Field","name":{"kind":"Name","value":"request"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"action"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"at"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"DeploymentView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startAt"}},{"kind":"Field","name":{"kind":"Name","value":"dryRun"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"pinnedSha256"}}]}},{"kind":"Field","name":{"kind":"Name","value":"sha256"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"plan"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"specHash"}},{"kind":"Field","name":{"kind":"Name","value":"maxRetries"}},{"kind":"Field","name":{"kind":"Name","value":"timeoutSeconds"}},{"kind":"Field","name":{"kind":"Name","value":"mandatory"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"effective"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"plugin"}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"host"}},{"kind":"Field","name":{"kind":"Name","value":"port"}},{"kind":"Field","name":{"kind":"Name","value":"user"}},{"kind":"Field","name":{"kind":"Name","value":"path"}}]}},{"kind":"Field","name":{"kind":"Name","value":"healthChecks"}},{"kind":"Field","name":{"kind":"Name","value":"secretNames"}},{"kind":"Field","name":{"kind":"Name","value":"configSource"}},{"kind":"Field","name":{"kind":"Name","value":"configRevision"}},{"kind":"Field","name":{"kind":"Name","value":"rollback"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"enabled"}},{"kind":"Field","name":{"kind":"Name","value":"on"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"decision"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"requires"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"approvalsRequired"}},{"kind":"Field","name":{"kind":"Name","value":"approvalGroups"}},{"kind":"Field","name":{"kind":"Name","value":"change"}},{"kind":"Field","name":{"kind":"Name","value":"freeze"}},{"kind":"Field","name":{"kind":"Name","value":"promotionFrom"}},{"kind":"Field","name":{"kind":"Name","value":"promotionSatisfiedBy"}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"after"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"dependencies"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"dependents"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}},{"kind":"Field","name":{"kind":"Name","value":"exports"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"format"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"public"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"cancelRequested"}},{"kind":"Field","name":{"kind":"Name","value":"cancelledBy"}},{"kind":"Field","name":{"kind":"Name","value":"canCancel"}},{"kind":"Field","name":{"kind":"Name","value":"canApprove"}},{"kind":"Field","name":{"kind":"Name","value":"canPauseRollout"}},{"kind":"Field","name":{"kind":"Name","value":"canResumeRollout"}},{"kind":"Field","name":{"kind":"Name","value":"canAbortRollout"}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"StepView"}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollback"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"StepView"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"RolloutView"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"LogLineView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"LogLine"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"time"}},{"kind":"Field","name":{"kind":"Name","value":"step"}},{"kind":"Field","name":{"kind":"Name","value":"level"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]} as unknown as DocumentNode<DeploymentLiveSubscription, DeploymentLiveSubscriptionVariables>;
export const DependentsFeedDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"DependentsFeed"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"activity"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deployment"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"after"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"dependencies"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<DependentsFeedSubscription, DependentsFeedSubscriptionVariables>;
export const CancelDeploymentDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CancelDeployment"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cancelDeployment"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"DeploymentView"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"StepView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Step"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"pass"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"target"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"durationMs"}},{"kind":"Field","name":{"kind":"Name","value":"output"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"RolloutView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Rollout"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"targetsTotal"}},{"kind":"Field","name":{"kind":"Name","value":"targetsDone"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"deferredUntil"}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"targets"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}}]}},{"kind":"Field","name":{"kind":"Name","value":"bake"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seconds"}},{"kind":"Field","name":{"kind":"Name","value":"until"}}]}},{"kind":"Field","name":{"kind":"Name","value":"gate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"checks"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"detail"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}},{"kind":"Field","name":{"kind":"Name","value":"wave"}},{"kind":"Field","name":{"kind":"Name","value":"batch"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"Field","name":{"kind":"Name","value":"pause"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"step"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"until"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"mayResume"}}]}},{"kind":"Field","name":{"kind":"Name","value":"request"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"action"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"at"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"DeploymentView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startAt"}},{"kind":"Field","name":{"kind":"Name","value":"dryRun"}},{"kind":"Field","name":{"kind":"Name","value":"release"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"pinnedSha256"}}]}},{"kind":"Field","name":{"kind":"Name","value":"sha256"}},{"kind":"Field","name":{"kind":"Name","value":"labels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"plan"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"specHash"}},{"kind":"Field","name":{"kind":"Name","value":"maxRetries"}},{"kind":"Field","name":{"kind":"Name","value":"timeoutSeconds"}},{"kind":"Field","name":{"kind":"Name","value":"mandatory"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"effective"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"plugin"}},{"kind":"Field","name":{"kind":"Name","value":"targets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"host"}},{"kind":"Field","name":{"kind":"Name","value":"port"}},{"kind":"Field","name":{"kind":"Name","value":"user"}},{"kind":"Field","name":{"kind":"Name","value":"path"}}]}},{"kind":"Field","name":{"kind":"Name","value":"healthChecks"}},{"kind":"Field","name":{"kind":"Name","value":"secretNames"}},{"kind":"Field","name":{"kind":"Name","value":"configSource"}},{"kind":"Field","name":{"kind":"Name","value":"configRevision"}},{"kind":"Field","name":{"kind":"Name","value":"rollback"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"enabled"}},{"kind":"Field","name":{"kind":"Name","value":"on"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"decision"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"requires"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"approvalsRequired"}},{"kind":"Field","name":{"kind":"Name","value":"approvalGroups"}},{"kind":"Field","name":{"kind":"Name","value":"change"}},{"kind":"Field","name":{"kind":"Name","value":"freeze"}},{"kind":"Field","name":{"kind":"Name","value":"promotionFrom"}},{"kind":"Field","name":{"kind":"Name","value":"promotionSatisfiedBy"}}]}},{"kind":"Field","name":{"kind":"Name","value":"approval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"groups"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"identity"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"comment"}},{"kind":"Field","name":{"kind":"Name","value":"time"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"after"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"dependencies"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"dependents"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}},{"kind":"Field","name":{"kind":"Name","value":"exports"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"format"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"public"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"cancelRequested"}},{"kind":"Field","name":{"kind":"Name","value":"cancelledBy"}},{"kind":"Field","name":{"kind":"Name","value":"canCancel"}},{"kind":"Field","name":{"kind":"Name","value":"canApprove"}},{"kind":"Field","name":{"kind":"Name","value":"canPauseRollout"}},{"kind":"Field","name":{"kind":"Name","value":"canResumeRollout"}},{"kind":"Field","name":{"kind":"Name","value":"canAbortRollout"}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"StepView"}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollback"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"StepView"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"RolloutView"}}]}}]}}]} as unknown as DocumentNode<CancelDeploymentMutation, CancelDeploymentMutationVariables>;
export const DeploymentsPageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"DeploymentsPage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"filter"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"DeploymentFilter"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deployments"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"filter"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"dryRun"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]}}]}}]} as unknown as DocumentNode<DeploymentsPageQuery, DeploymentsPageQueryVariables>;
export const DeploymentsSuggestionsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"DeploymentsSuggestions"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"inventory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}}]}}]}}]} as unknown as DocumentNode<DeploymentsSuggestionsQuery, DeploymentsSuggestionsQueryVariables>;
export const DoraPageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"DoraPage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"filter"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"DoraFilter"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"doraMetrics"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"filter"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"from"}},{"kind":"Field","name":{"kind":"Name","value":"to"}},{"kind":"Field","name":{"kind":"Name","value":"weeks"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"year"}},{"kind":"Field","name":{"kind":"Name","value":"week"}},{"kind":"Field","name":{"kind":"Name","value":"start"}},{"kind":"Field","name":{"kind":"Name","value":"figures"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"DoraPageFigures"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"total"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"DoraPageFigures"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"DoraPageFigures"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"DoraFigures"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentFrequency"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploys"}},{"kind":"Field","name":{"kind":"Name","value":"perWeek"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}}]}},{"kind":"Field","name":{"kind":"Name","value":"leadTime"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seconds"}},{"kind":"Field","name":{"kind":"Name","value":"samples"}},{"kind":"Field","name":{"kind":"Name","value":"enoughData"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}}]}},{"kind":"Field","name":{"kind":"Name","value":"changeFailRate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"of"}},{"kind":"Field","name":{"kind":"Name","value":"rate"}},{"kind":"Field","name":{"kind":"Name","value":"enoughData"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}}]}},{"kind":"Field","name":{"kind":"Name","value":"recoveryTime"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seconds"}},{"kind":"Field","name":{"kind":"Name","value":"samples"}},{"kind":"Field","name":{"kind":"Name","value":"enoughData"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}},{"kind":"Field","name":{"kind":"Name","value":"unrecoveredIds"}}]}},{"kind":"Field","name":{"kind":"Name","value":"reworkRate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"of"}},{"kind":"Field","name":{"kind":"Name","value":"rate"}},{"kind":"Field","name":{"kind":"Name","value":"enoughData"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}}]}}]}}]} as unknown as DocumentNode<DoraPageQuery, DoraPageQueryVariables>;
export const EnvironmentsPageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"EnvironmentsPage"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"inventory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"InventoryCell"}}]}},{"kind":"Field","name":{"kind":"Name","value":"activity"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"200"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"InFlight"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"InventoryCell"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"InventoryEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"sha256"}},{"kind":"Field","name":{"kind":"Name","value":"deployedAt"}},{"kind":"Field","name":{"kind":"Name","value":"deployedBy"}},{"kind":"Field","name":{"kind":"Name","value":"previous"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"deployedAt"}}]}},{"kind":"Field","name":{"kind":"Name","value":"lastFailure"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"step"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"rollback"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"InFlight"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}}]}}]} as unknown as DocumentNode<EnvironmentsPageQuery, EnvironmentsPageQueryVariables>;
export const EnvironmentInventoryDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"EnvironmentInventory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"inventory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"InventoryCell"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"InventoryCell"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"InventoryEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"sha256"}},{"kind":"Field","name":{"kind":"Name","value":"deployedAt"}},{"kind":"Field","name":{"kind":"Name","value":"deployedBy"}},{"kind":"Field","name":{"kind":"Name","value":"previous"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"deployedAt"}}]}},{"kind":"Field","name":{"kind":"Name","value":"lastFailure"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"step"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"rollback"}}]}}]}}]} as unknown as DocumentNode<EnvironmentInventoryQuery, EnvironmentInventoryQueryVariables>;
export const EnvironmentsFeedDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"EnvironmentsFeed"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"activity"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"deployment"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"InFlight"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"InFlight"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}}]}}]} as unknown as DocumentNode<EnvironmentsFeedSubscription, EnvironmentsFeedSubscriptionVariables>;
export const FreezeCalendarDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"FreezeCalendar"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"tenant"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"application"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"environment"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"to"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Time"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"freezeCalendar"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"tenant"},"value":{"kind":"Variable","name":{"kind":"Name","value":"tenant"}}},{"kind":"Argument","name":{"kind":"Name","value":"application"},"value":{"kind":"Variable","name":{"kind":"Name","value":"application"}}},{"kind":"Argument","name":{"kind":"Name","value":"environment"},"value":{"kind":"Variable","name":{"kind":"Name","value":"environment"}}},{"kind":"Argument","name":{"kind":"Name","value":"to"},"value":{"kind":"Variable","name":{"kind":"Name","value":"to"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"from"}},{"kind":"Field","name":{"kind":"Name","value":"to"}},{"kind":"Field","name":{"kind":"Name","value":"windows"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"FreezeWindowView"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"FreezeWindowView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"FreezeWindow"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"start"}},{"kind":"Field","name":{"kind":"Name","value":"end"}},{"kind":"Field","name":{"kind":"Name","value":"recurring"}},{"kind":"Field","name":{"kind":"Name","value":"cron"}},{"kind":"Field","name":{"kind":"Name","value":"timeZone"}}]}}]} as unknown as DocumentNode<FreezeCalendarQuery, FreezeCalendarQueryVariables>;
export const EnvironmentsFreezesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"EnvironmentsFreezes"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"environments"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"EnvironmentRef"}}}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"freezeCalendars"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"environments"},"value":{"kind":"Variable","name":{"kind":"Name","value":"environments"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"calendar"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"from"}},{"kind":"Field","name":{"kind":"Name","value":"to"}},{"kind":"Field","name":{"kind":"Name","value":"windows"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"FreezeWindowView"}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"FreezeWindowView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"FreezeWindow"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rule"}},{"kind":"Field","name":{"kind":"Name","value":"start"}},{"kind":"Field","name":{"kind":"Name","value":"end"}},{"kind":"Field","name":{"kind":"Name","value":"recurring"}},{"kind":"Field","name":{"kind":"Name","value":"cron"}},{"kind":"Field","name":{"kind":"Name","value":"timeZone"}}]}}]} as unknown as DocumentNode<EnvironmentsFreezesQuery, EnvironmentsFreezesQueryVariables>;
export const ReleasesPageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ReleasesPage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"releases"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"onFailure"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"deploys"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}}]}}]}}]}}]} as unknown as DocumentNode<ReleasesPageQuery, ReleasesPageQueryVariables>;
export const ReleasePageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ReleasePage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"release"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ReleaseView"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ReleaseView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Release"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"onFailure"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"deploys"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"after"}},{"kind":"Field","name":{"kind":"Name","value":"rollbackState"}},{"kind":"Field","name":{"kind":"Name","value":"rollbackDeploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"rollbackError"}},{"kind":"Field","name":{"kind":"Name","value":"deployment"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"exports"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"format"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"imports"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"exports"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"from"}},{"kind":"Field","name":{"kind":"Name","value":"to"}}]}}]}}]} as unknown as DocumentNode<ReleasePageQuery, ReleasePageQueryVariables>;
export const ReleaseLiveDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"ReleaseLive"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"releaseEvents"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ReleaseView"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ReleaseView"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Release"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"onFailure"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"deploys"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"after"}},{"kind":"Field","name":{"kind":"Name","value":"rollbackState"}},{"kind":"Field","name":{"kind":"Name","value":"rollbackDeploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"rollbackError"}},{"kind":"Field","name":{"kind":"Name","value":"deployment"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"exports"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"format"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"imports"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentId"}},{"kind":"Field","name":{"kind":"Name","value":"exports"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"from"}},{"kind":"Field","name":{"kind":"Name","value":"to"}}]}}]}}]} as unknown as DocumentNode<ReleaseLiveSubscription, ReleaseLiveSubscriptionVariables>;
export const WallDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Wall"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"failedStates"}},"type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"DeploymentState"}}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"since"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Time"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"activity"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"200"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WallDeployment"}}]}},{"kind":"Field","alias":{"kind":"Name","value":"failed"},"name":{"kind":"Name","value":"deployments"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"states"},"value":{"kind":"Variable","name":{"kind":"Name","value":"failedStates"}}},{"kind":"ObjectField","name":{"kind":"Name","value":"createdAfter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"since"}}}]}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"30"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WallDeployment"}}]}}]}},{"kind":"Field","alias":{"kind":"Name","value":"inService"},"name":{"kind":"Name","value":"inventory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"deployedAt"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WallDeployment"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startAt"}},{"kind":"Field","name":{"kind":"Name","value":"dryRun"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"plan"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"maxRetries"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"targetsTotal"}},{"kind":"Field","name":{"kind":"Name","value":"targetsDone"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"deferredUntil"}},{"kind":"Field","name":{"kind":"Name","value":"bake"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"until"}}]}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pause"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"until"}}]}}]}}]}}]} as unknown as DocumentNode<WallQuery, WallQueryVariables>;
export const WallFeedDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"WallFeed"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"activity"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"deployment"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WallDeployment"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WallDeployment"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Deployment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"tenant"}},{"kind":"Field","name":{"kind":"Name","value":"application"}},{"kind":"Field","name":{"kind":"Name","value":"environment"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"requester"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startAt"}},{"kind":"Field","name":{"kind":"Name","value":"dryRun"}},{"kind":"Field","name":{"kind":"Name","value":"artifact"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"currentStep"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"plan"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"maxRetries"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"Field","name":{"kind":"Name","value":"rollout"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"currentWave"}},{"kind":"Field","name":{"kind":"Name","value":"targetsTotal"}},{"kind":"Field","name":{"kind":"Name","value":"targetsDone"}},{"kind":"Field","name":{"kind":"Name","value":"waves"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"deferredUntil"}},{"kind":"Field","name":{"kind":"Name","value":"bake"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"until"}}]}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pause"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"until"}}]}}]}}]}}]} as unknown as DocumentNode<WallFeedSubscription, WallFeedSubscriptionVariables>;
export const WallDoraDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"WallDora"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"current"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"DoraFilter"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"previous"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"DoraFilter"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","alias":{"kind":"Name","value":"current"},"name":{"kind":"Name","value":"doraMetrics"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"current"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"range"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"DoraPageFigures"}}]}}]}},{"kind":"Field","alias":{"kind":"Name","value":"previous"},"name":{"kind":"Name","value":"doraMetrics"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"previous"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"range"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"DoraPageFigures"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"DoraPageFigures"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"DoraFigures"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploymentFrequency"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deploys"}},{"kind":"Field","name":{"kind":"Name","value":"perWeek"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}}]}},{"kind":"Field","name":{"kind":"Name","value":"leadTime"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seconds"}},{"kind":"Field","name":{"kind":"Name","value":"samples"}},{"kind":"Field","name":{"kind":"Name","value":"enoughData"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}}]}},{"kind":"Field","name":{"kind":"Name","value":"changeFailRate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"of"}},{"kind":"Field","name":{"kind":"Name","value":"rate"}},{"kind":"Field","name":{"kind":"Name","value":"enoughData"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}}]}},{"kind":"Field","name":{"kind":"Name","value":"recoveryTime"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seconds"}},{"kind":"Field","name":{"kind":"Name","value":"samples"}},{"kind":"Field","name":{"kind":"Name","value":"enoughData"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}},{"kind":"Field","name":{"kind":"Name","value":"unrecoveredIds"}}]}},{"kind":"Field","name":{"kind":"Name","value":"reworkRate"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"of"}},{"kind":"Field","name":{"kind":"Name","value":"rate"}},{"kind":"Field","name":{"kind":"Name","value":"enoughData"}},{"kind":"Field","name":{"kind":"Name","value":"band"}},{"kind":"Field","name":{"kind":"Name","value":"deploymentIds"}}]}}]}}]} as unknown as DocumentNode<WallDoraQuery, WallDoraQueryVariables>;