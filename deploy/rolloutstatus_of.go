package deploy

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// The records of what a pass of a rollout does after its last batch: its
// bake and its gates, each an operation of the deploy (StepKey with the
// pass, batch 0: "bake[2]", "gates[2]") of type StepTypeRollout. The
// output of the gates' record holds the verdict and the checks. These are
// stored names.
const (
	StepBake          = "bake"
	StepGates         = "gates"
	StepTypeRollout   = "rollout"
	OutputGateVerdict = "verdict"
	// OutputGateChecks is the JSON list of the checks ([]RolloutGateCheck).
	OutputGateChecks = "checks"
	// OutputInService is the output of a checkpoint of activation that
	// names the deploy in service when it was taken ("" for none): what
	// its compensation gives the inventory back.
	OutputInService = "manent:in_service"
	// OutputInServiceVersion is the output of a checkpoint of activation
	// that holds the version in service before the deploy, what its
	// compensation brings the targets back to: "" when there was none (a
	// first deploy); absent when the deploy itself was in service already
	// (a later batch of a rollout: an earlier checkpoint holds it). The
	// config step of a rollout records it too, for a batch rolled back
	// before any activation.
	OutputInServiceVersion = "manent:in_service_version"
	// OutputRolloutPlan is the output of a config step that failed after
	// it planned the rollout (a target rejected by the configuration valid
	// then): the plan, as JSON, which the status shows instead of the
	// submission's. A config step that succeeded leaves the plan in
	// Effective.RolloutPlan.
	OutputRolloutPlan = "manent:rollout_plan"
)

// RolloutStatus is where the rollout of d stands, built from the plan it
// follows (rolloutPlan) and the records of the steps; nil for a deploy
// without rollout.
func (d Deployment) RolloutStatus() *RolloutStatus {
	plan := d.rolloutPlan()
	if plan == nil {
		return nil
	}
	v := newRolloutView(&d)
	st := &RolloutStatus{State: RolloutPending, Waves: []RolloutWaveStatus{}, Targets: []RolloutTargetStatus{}}
	st.control = rolloutControl{deploy: d.State, dryRun: d.DryRun,
		rollingBack: !d.State.Terminal() && (d.Rollback == RollbackRunning || v.compensating)}
	waveOf := map[int]string{}
	for _, p := range plan.Passes {
		waveOf[p.Index] = p.Name
		w := v.wave(p)
		if st.CurrentWave == nil && w.State.goesOn() {
			name := p.Name
			st.CurrentWave = &name
		}
		st.control.observe(w)
		st.Waves = append(st.Waves, w)
	}
	started := false
	restored := d.versionBefore()
	for _, t := range plan.Targets {
		ts := RolloutTargetStatus{Name: t.Name, Labels: t.Labels, Outcome: t.Outcome, State: StepSkipped}
		if t.Outcome == OutcomeRejected && t.Reason != "" {
			// Why it failed the deploy (a plan refused when the deploy ran).
			reason := "rejected: " + t.Reason
			ts.Error = &reason
		}
		if t.Outcome == OutcomeTargeted {
			ts.Wave, ts.Batch = waveOf[t.Pass], t.Batch
			b := v.batch(t.Pass, t.Batch)
			if s := v.deferring; s != nil && s.Pass == t.Pass && !b.started && deferred(*s, t.Name) {
				// Its wave waits for the freeze window over it to end.
				ts.Outcome = OutcomeDeferred
			}
			ts.State, ts.Error = b.state, optional(b.err)
			started = started || b.started
			if b.rolledBack {
				ts.State, ts.Release = TargetRolledBack, restored
			} else if b.activated {
				version := d.Artifact.Version
				ts.Release = &version
			}
		}
		st.Targets = append(st.Targets, ts)
	}
	switch {
	case d.State == StateSuccess:
		st.State = RolloutCompleted
	case d.State.Terminal():
		// Whenever it ended, also before its first batch (cancelled in
		// the queue, rejected, expired): the rollout will not go on.
		st.State = RolloutAborted
	case v.paused != nil:
		st.State = RolloutPaused
		st.Pause = pauseStatus(*v.paused)
		st.Pause.MayResume = append(st.Pause.MayResume, d.RolloutMayResume...)
	case v.asking != nil:
		st.State = RolloutAwaitingApproval
	case v.deferring != nil:
		st.State = RolloutDeferred
	case started:
		st.State = RolloutRunning
	}
	if q := d.RolloutRequest; q != nil && !d.State.Terminal() {
		st.Request = &RolloutRequestStatus{Action: q.Action, By: q.By, At: q.At.UTC()}
	}
	return st
}

// rolloutPlan is the plan the config step made from the configuration
// valid when d ran: the one it runs once the step succeeded (nil when that
// configuration has no rollout, whatever the submission planned), the one
// refused when the step failed on it (a target rejected then); until the
// step ended, or when it failed before it planned, the submission's.
func (d *Deployment) rolloutPlan() *RolloutPlan {
	if d.Effective.RolloutPlan != nil {
		return d.Effective.RolloutPlan
	}
	for _, s := range d.Steps {
		if s.Name != StepConfig || s.Pass != 0 || (s.Kind != KindRun && s.Kind != KindDryRun) {
			continue
		}
		switch s.State {
		case StepSuccess:
			return nil
		case StepError:
			var p RolloutPlan
			if raw := s.Output[OutputRolloutPlan]; raw != "" && json.Unmarshal([]byte(raw), &p) == nil {
				return &p
			}
		}
	}
	return d.Plan.Rollout
}

// HasRollout reports whether d is rolled out in waves.
func (d *Deployment) HasRollout() bool { return d.rolloutPlan() != nil }

// WaveAwaitingApproval is the pass of the wave whose approval the rollout
// of d asks now; 0 when none.
func (d Deployment) WaveAwaitingApproval() int {
	if s := newRolloutView(&d).asking; s != nil {
		return s.Pass
	}
	return 0
}

// goesOn reports whether a wave in state s is the rollout's current one:
// it runs, waits or is held, and the rollout goes on from it.
func (s WaveState) goesOn() bool {
	switch s {
	case WaveRunning, WaveBaking, WaveGating, WavePaused, WaveAwaitingApproval, WaveDeferred:
		return true
	}
	return false
}

// deferred reports whether the deferral s holds target back because the
// window selects it: its record names the targets selected among those the
// wave has left (a batch already done is not deferred, nor a target no
// window selects). A record without them (of an earlier version) holds
// every target left.
func deferred(s Step, target string) bool {
	list, ok := s.Output[OutputDeferTargets]
	if !ok || list == "" {
		return true
	}
	// Names joined by commas; a name may hold one (a path).
	return strings.Contains(","+list+",", ","+target+",")
}

// approval is the approval section of wave p, which asks approvals: what
// its record says once asked (waiting, approved, rejected, expired), what
// it will ask before (pending), with the answers given.
func (v rolloutView) approval(p RolloutPass) *StatusApproval {
	req := WaveApprovalRequirement(v.d.Decision.Approvals)
	a := &StatusApproval{Status: "pending", Required: req.Count, Groups: req.Groups, Roles: req.Roles, Approvals: []Approval{}}
	rejected := false
	for _, ans := range v.d.WaveApprovals {
		if ans.Pass == p.Index {
			a.Approvals = append(a.Approvals, ans)
			rejected = rejected || !ans.Approved
		}
	}
	s, ok := v.recs[StepKey{Step: StepApproval, Pass: p.Index, Kind: KindRun}]
	if !ok {
		return a
	}
	if n, err := strconv.Atoi(s.Output[OutputApprovalRequired]); err == nil {
		a.Required = n
	}
	a.Groups, a.Roles = splitList(s.Output[OutputApprovalGroups]), splitList(s.Output[OutputApprovalRoles])
	if t, err := time.Parse(time.RFC3339Nano, s.Output[OutputApprovalExpires]); err == nil {
		t = t.UTC()
		a.ExpiresAt = &t
	}
	end := s.Output[OutputApprovalEnd]
	switch {
	case s.State == StepRunning && !v.d.State.Terminal():
		a.Status = ApprovalWaiting
	case end != "":
		a.Status = end
	// Records of earlier versions, without an end: told from their state.
	case s.State == StepSuccess:
		a.Status = "approved"
	case rejected:
		a.Status = "rejected"
	case s.State == StepError && strings.Contains(s.Error, "expired"):
		a.Status = "expired"
	default:
		// Ended by an abort or a cancel before its answers came.
		a.Status = "cancelled"
	}
	return a
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// resumed reports whether a person resumed a pause of pass: its gates'
// verdict, whatever it was, let it go on.
func (v rolloutView) resumed(pass int) bool {
	for k, s := range v.recs {
		if k.Step == StepPause && k.Pass == pass && k.Kind == KindRun && s.State == StepSuccess {
			return true
		}
	}
	return false
}

// pauseStatus reads the record of a pause; MayResume is the service's to
// fill in.
func pauseStatus(s Step) *RolloutPauseStatus {
	p := &RolloutPauseStatus{Step: PauseName(s.Pass, s.Batch), Reason: s.Output[OutputPauseReason], MayResume: []string{}}
	if s.StartedAt != nil {
		p.Since = s.StartedAt.UTC()
	}
	if t, err := time.Parse(time.RFC3339Nano, s.Output[OutputPauseUntil]); err == nil {
		p.Until = t.UTC()
	}
	if by := s.Output[OutputPauseBy]; by != "" {
		p.By = &by
	}
	return p
}

// versionBefore is the version that was in service before d, which a
// compensation brings the targets back to: the first checkpoint of
// activation that recorded it (a later batch's finds d itself in service
// and leaves it out), what the compensation of activation put back; before
// any activation (a batch that failed before it, in post-test), the one
// the config step recorded. nil when none was in service.
func (d Deployment) versionBefore() *string {
	var first, configured *Step
	for i, s := range d.Steps {
		if _, ok := s.Output[OutputInServiceVersion]; !ok || s.State != StepSuccess {
			continue
		}
		switch {
		case s.Name == StepConfig && s.Kind != KindCheckpoint:
			configured = &d.Steps[i]
		case s.Name == StepActivation && s.Kind == KindCheckpoint:
			if first == nil || s.Pass < first.Pass || (s.Pass == first.Pass && s.Batch < first.Batch) {
				first = &d.Steps[i]
			}
		}
	}
	if first == nil {
		first = configured
	}
	if first == nil {
		return nil
	}
	return optional(first.Output[OutputInServiceVersion])
}

// rolloutView indexes the records of a deploy for its rollout's status,
// read once: the status asks them for every wave and every target.
type rolloutView struct {
	d *Deployment
	// span are the names of the steps run once per batch, in order.
	span []string
	recs map[StepKey]Step
	// paused, asking and deferring are the records of the pause, the
	// wave's approval and the deferral going on; nil when none is, or the
	// deploy ended.
	paused, asking, deferring *Step
	// compensating: a compensation of the deploy's steps is recorded.
	compensating bool
}

func newRolloutView(d *Deployment) rolloutView {
	v := rolloutView{d: d, recs: map[StepKey]Step{}}
	lo, hi := -1, -1
	for i, s := range d.Plan.Steps {
		if s.Name == StepDeploy || s.Name == StepActivation {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	for i := lo; i >= 0 && i <= hi; i++ {
		v.span = append(v.span, d.Plan.Steps[i].Name)
	}
	ongoing := !d.State.Terminal()
	for i, s := range d.Steps {
		k := s.Key()
		v.recs[k] = s
		v.compensating = v.compensating || k.Kind == KindRollback
		if !ongoing || k.Kind != KindRun || s.State != StepRunning {
			continue
		}
		switch s.Name {
		case StepPause:
			v.paused = &d.Steps[i]
		case StepApproval:
			v.asking = &d.Steps[i]
		case StepDefer:
			v.deferring = &d.Steps[i]
		}
	}
	return v
}

// batchView is one batch as its records tell it.
type batchView struct {
	state      StepState
	err        string
	started    bool
	activated  bool
	rolledBack bool
	startedAt  *time.Time
	finishedAt *time.Time
}

func (v rolloutView) runKind() StepKind {
	if v.d.DryRun {
		return KindDryRun
	}
	return KindRun
}

// batch reads the batch's runs of the span's steps: ERROR when one failed,
// RUNNING while they go on, SUCCESS once all succeeded; CANCELLED or
// SKIPPED when the deploy ended before them. Its compensations, when all
// succeeded, brought its targets back.
func (v rolloutView) batch(pass, batch int) batchView {
	b := batchView{state: StepPending}
	succeeded, compensated, compensations := 0, 0, 0
	for _, name := range v.span {
		for _, kind := range []StepKind{KindCheckpoint, v.runKind(), KindRollback} {
			s, ok := v.recs[StepKey{Step: name, Pass: pass, Batch: batch, Kind: kind}]
			if !ok {
				continue
			}
			if kind == KindRollback {
				compensations++
				if s.State == StepSuccess {
					compensated++
				}
				continue
			}
			if s.StartedAt != nil {
				b.started = true
				if b.startedAt == nil || s.StartedAt.Before(*b.startedAt) {
					b.startedAt = utc(s.StartedAt)
				}
			}
			if s.FinishedAt != nil && (b.finishedAt == nil || s.FinishedAt.After(*b.finishedAt)) {
				b.finishedAt = utc(s.FinishedAt)
			}
			if kind == KindCheckpoint {
				continue
			}
			switch s.State {
			case StepSuccess:
				succeeded++
				b.activated = b.activated || name == StepActivation
			case StepError:
				b.state, b.err = StepError, s.Error
			case StepRunning:
				if b.state != StepError {
					b.state = StepRunning
				}
			case StepCancelled, StepSkipped:
				if b.state == StepPending {
					b.state = s.State
				}
			}
		}
	}
	switch {
	case b.state == StepError || b.state == StepRunning:
	case succeeded == len(v.span) && succeeded > 0:
		b.state = StepSuccess
	case succeeded > 0 && !v.d.State.Terminal():
		// Between two steps of the batch.
		b.state = StepRunning
	}
	if b.state == StepPending && v.d.State.Terminal() {
		// The deploy ended before the batch, with no record of it (it
		// never started).
		b.state = StepSkipped
		if v.d.State == StateCancelled {
			b.state = StepCancelled
		}
	}
	if b.state == StepRunning || b.state == StepPending {
		b.finishedAt = nil
	}
	b.rolledBack = compensations > 0 && compensated == compensations
	return b
}

// wave is the status of pass p.
func (v rolloutView) wave(p RolloutPass) RolloutWaveStatus {
	w := RolloutWaveStatus{Name: p.Name, State: WavePending, Targets: []string{}, Batches: []RolloutBatchStatus{}}
	done, started, failed, rolledBack := 0, 0, false, 0
	for _, b := range p.Batches {
		w.Targets = append(w.Targets, b.Targets...)
		bv := v.batch(p.Index, b.Index)
		w.Batches = append(w.Batches, RolloutBatchStatus{Index: b.Index, Targets: b.Targets, State: bv.state,
			StartedAt: bv.startedAt, FinishedAt: bv.finishedAt})
		if bv.started {
			started++
		}
		switch bv.state {
		case StepSuccess:
			done++
		case StepError:
			done++
			failed = true
		}
		if bv.rolledBack {
			rolledBack++
		}
	}
	if p.Bake > 0 {
		w.Bake = &RolloutBake{Duration: p.Bake, Seconds: int(p.Bake / time.Second)}
	}
	bake, baked := v.recs[StepKey{Step: StepBake, Pass: p.Index, Kind: KindRun}]
	if baked && w.Bake != nil && bake.StartedAt != nil {
		until := bake.StartedAt.UTC().Add(p.Bake)
		w.Bake.Until = &until
	}
	gate, gated := v.recs[StepKey{Step: StepGates, Pass: p.Index, Kind: KindRun}]
	if gated {
		w.Gate = gateStatus(gate)
	}
	if p.Approval && len(p.Batches) > 0 {
		w.Approval = v.approval(p)
	}
	terminal := v.d.State.Terminal()
	pause, asking, deferring := v.paused, v.asking, v.deferring
	if deferring != nil && deferring.Pass == p.Index {
		if t, err := time.Parse(time.RFC3339Nano, deferring.Output[OutputDeferUntil]); err == nil {
			t = t.UTC()
			w.DeferredUntil = &t
		}
	}
	switch {
	case deferring != nil && deferring.Pass == p.Index:
		w.State = WaveDeferred
	case pause != nil && pause.Pass == p.Index:
		w.State = WavePaused
	case asking != nil && asking.Pass == p.Index:
		w.State = WaveAwaitingApproval
	case len(p.Batches) == 0:
		w.State = WaveEmpty
	case rolledBack > 0 && rolledBack == started:
		w.State = WaveRolledBack
	case gated && gate.State == StepError && !v.resumed(p.Index):
		w.State = WaveFailed
	case gated && (gate.State == StepSuccess || gate.State == StepError):
		// Passed its gates, or a person resumed it after they did not.
		w.State = WavePassed
	case started == 0 && terminal:
		w.State = WaveSkipped
	case started == 0:
	case done < len(p.Batches) && !terminal:
		w.State = WaveRunning
	case baked && bake.State == StepRunning && !terminal:
		w.State = WaveBaking
	case terminal && v.d.State == StateSuccess:
		w.State = WavePassed
	case terminal:
		// It began and the deploy ended in it (a failure beyond
		// max_failures, a cancel).
		w.State = WaveFailed
		if !failed && done == len(p.Batches) && (!baked || bake.State == StepSuccess) && !gated && !v.hasGates() {
			w.State = WavePassed
		}
	case w.Bake != nil && !baked && !v.d.DryRun:
		// Its batches are done and its bake is about to be recorded: until
		// it is, there is no end to count down to.
		w.State = WaveRunning
	case v.hasGates() && !gated:
		w.State = WaveGating
	default:
		w.State = WavePassed
	}
	return w
}

func (v rolloutView) hasGates() bool {
	r := v.d.Effective.Rollout
	return r != nil && len(r.Gates) > 0 && !v.d.DryRun
}

// gateStatus reads the record of a pass's gates: its state is fail when a
// check failed, pass when the verdict (under no_data) is, else
// inconclusive when a check was, else no_data.
func gateStatus(s Step) *RolloutGate {
	g := &RolloutGate{Checks: []RolloutGateCheck{}, At: utc(s.FinishedAt)}
	if raw := s.Output[OutputGateChecks]; raw != "" {
		_ = json.Unmarshal([]byte(raw), &g.Checks)
	}
	seen := map[GateResult]bool{}
	for _, c := range g.Checks {
		seen[c.State] = true
	}
	switch {
	case seen[GateFail]:
		g.State = GateFail
	case s.Output[OutputGateVerdict] == string(GatePass):
		g.State = GatePass
	case seen[GateInconclusive]:
		g.State = GateInconclusive
	default:
		g.State = GateNoData
	}
	return g
}
