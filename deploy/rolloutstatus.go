package deploy

import "time"

// RolloutStatus is the rollout section of the status JSON (and the GraphQL
// Rollout type): where a deploy with a rollout stands, wave by wave and
// target by target. The engine builds it from the plan and the step
// records; it is omitted for a deploy without rollout. Times are UTC.
type RolloutStatus struct {
	State RolloutState `json:"state"`
	// CurrentWave is the name of the wave running, baking, gated, paused,
	// awaiting approval or deferred; nil before the first and after the last.
	CurrentWave *string             `json:"current_wave"`
	Waves       []RolloutWaveStatus `json:"waves"`
	// Targets are every target of the deploy, in the order written.
	Targets []RolloutTargetStatus `json:"targets"`
	// Pause says why and since when the rollout is paused, and who may
	// resume or abort it; nil unless State is paused.
	Pause *RolloutPauseStatus `json:"pause,omitempty"`
	// Request is what a person asked of the rollout that it has not done
	// yet (a pause waits for the batch in flight); nil for none.
	Request *RolloutRequestStatus `json:"request,omitempty"`
	// control is what RolloutRefusal decides by, read with the rest: the
	// same facts refuse a request and hide its button.
	control rolloutControl
}

// RolloutRequestStatus is a person's request of a rollout, pending.
type RolloutRequestStatus struct {
	Action RolloutAction `json:"action"`
	By     string        `json:"by"`
	At     time.Time     `json:"at"`
}

// RolloutState is where a rollout as a whole stands.
type RolloutState string

// The rollout states.
const (
	RolloutPending          RolloutState = "pending"
	RolloutRunning          RolloutState = "running"
	RolloutPaused           RolloutState = "paused"
	RolloutAwaitingApproval RolloutState = "awaiting_approval"
	RolloutDeferred         RolloutState = "deferred"
	RolloutCompleted        RolloutState = "completed"
	RolloutAborted          RolloutState = "aborted"
)

// RolloutWaveStatus is one wave (pass) of the rollout.
type RolloutWaveStatus struct {
	Name  string    `json:"name"`
	State WaveState `json:"state"`
	// Targets are the names of the wave's targets, in the order written.
	Targets []string             `json:"targets"`
	Batches []RolloutBatchStatus `json:"batches"`
	// Bake is the wave's bake: Until is when it ends, set once it started.
	Bake *RolloutBake `json:"bake,omitempty"`
	// Gate is the result of the wave's gates once they ran.
	Gate *RolloutGate `json:"gate,omitempty"`
	// Approval is the approval asked before the wave, when it asks one.
	Approval *StatusApproval `json:"approval,omitempty"`
	// DeferredUntil is when the freeze window deferring the wave ends.
	DeferredUntil *time.Time `json:"deferred_until,omitempty"`
}

// WaveState is where one wave stands.
type WaveState string

// The wave states.
const (
	WavePending          WaveState = "pending"
	WaveAwaitingApproval WaveState = "awaiting_approval"
	WaveDeferred         WaveState = "deferred"
	WaveRunning          WaveState = "running"
	WaveBaking           WaveState = "baking"
	WaveGating           WaveState = "gating"
	WavePaused           WaveState = "paused"
	WavePassed           WaveState = "passed"
	WaveFailed           WaveState = "failed"
	WaveSkipped          WaveState = "skipped"
	// WaveEmpty is a wave the plan gave no target: it has nothing to do,
	// which is not skipped (nothing failed before it).
	WaveEmpty      WaveState = "empty"
	WaveRolledBack WaveState = "rolled_back"
)

// WaveStates are every state a wave may be in, for the clients' enums.
var WaveStates = []WaveState{WavePending, WaveAwaitingApproval, WaveDeferred, WaveRunning, WaveBaking, WaveGating,
	WavePaused, WavePassed, WaveFailed, WaveSkipped, WaveEmpty, WaveRolledBack}

// RolloutBatchStatus is one batch of a wave.
type RolloutBatchStatus struct {
	Index      int        `json:"index"`
	Targets    []string   `json:"targets"`
	State      StepState  `json:"state"`
	StartedAt  *time.Time `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

// RolloutBake is a wave's bake.
type RolloutBake struct {
	Duration time.Duration `json:"-"`
	// Seconds is Duration in whole seconds, for the JSON.
	Seconds int        `json:"seconds"`
	Until   *time.Time `json:"until"`
}

// RolloutGate is the outcome of a wave's gates.
type RolloutGate struct {
	// State is pass, fail, inconclusive or no_data: the combination of
	// Checks under the rollout's no_data policy.
	State  GateResult         `json:"state"`
	Checks []RolloutGateCheck `json:"checks"`
	At     *time.Time         `json:"at"`
}

// RolloutGateCheck is one gate's result.
type RolloutGateCheck struct {
	Name   string     `json:"name"`
	State  GateResult `json:"state"`
	Value  *float64   `json:"value"`
	Detail string     `json:"detail"`
}

// RolloutTargetStatus is one target of the rollout.
type RolloutTargetStatus struct {
	Name    string            `json:"name"`
	Labels  map[string]string `json:"labels,omitempty"`
	Outcome TargetOutcome     `json:"outcome"`
	// Wave and Batch place a targeted (or deferred) target; empty and 0
	// otherwise.
	Wave  string `json:"wave,omitempty"`
	Batch int    `json:"batch,omitempty"`
	// State uses the step vocabulary: PENDING, RUNNING, SUCCESS, ERROR,
	// SKIPPED, CANCELLED, ROLLED_BACK.
	State StepState `json:"state"`
	// Release is the version the target runs once its batch activated (or
	// the one it was brought back to).
	Release *string `json:"release"`
	Error   *string `json:"error"`
}

// RolloutPauseStatus is why a rollout is paused.
type RolloutPauseStatus struct {
	// Step is the name of the pause's record ("pause[2/1]"): what a
	// resume names so that it never ends another pause.
	Step   string    `json:"step"`
	Reason string    `json:"reason"`
	Since  time.Time `json:"since"`
	// Until is when the pause times out into an abort (pause_timeout).
	Until time.Time `json:"until"`
	// By is who paused it, for a pause asked by a person.
	By *string `json:"by"`
	// MayResume are the roles and groups allowed to resume or abort.
	MayResume []string `json:"may_resume"`
}

// TargetRolledBack is the state of a target its batch's compensation
// brought back: a target state only, never a step's.
const TargetRolledBack StepState = "ROLLED_BACK"
