package deploy

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestAfterStatus(t *testing.T) {
	started := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	deps := func(states ...State) []Dependency {
		out := make([]Dependency, len(states))
		for i, s := range states {
			out[i] = Dependency{ID: string(rune('a' + i)), State: s}
		}
		return out
	}
	tests := []struct {
		name    string
		state   State
		started *time.Time
		deps    []Dependency
		want    string
	}{
		{"waiting", StateWaitingDependency, nil, deps(StatePending, StateSuccess), "waiting"},
		{"every dependency succeeded", StateEnqueued, nil, deps(StateSuccess, StateSuccess), "satisfied"},
		{"a dependency failed, not seen by the wait yet", StateWaitingDependency, nil, deps(StateError, StatePending), "failed"},
		{"ended by its wait", StateDependencyFailed, nil, deps(StateError, StatePending), "failed"},
		{"cancelled while it waited", StateCancelled, nil, deps(StatePending), "cancelled"},
		{"cancelled while it waited, its dependency succeeded since", StateCancelled, nil, deps(StateSuccess), "cancelled"},
		{"cancelled while it awaited approval", StateCancelled, nil, deps(StateSuccess), "satisfied"},
		{"abandoned while it waited", StateError, nil, deps(StatePending, StatePending), "error"},
		// The wait had ended: the deploy ran, or waited for its approvals.
		{"ran, then its dependency was removed", StateSuccess, &started, deps(""), "satisfied"},
		{"cancelled after it ran", StateCancelled, &started, deps(StateSuccess, ""), "satisfied"},
		{"awaiting approval, dependency unreadable", StateAwaitingApproval, nil, deps(""), "satisfied"},
		{"rejected after the wait", StateRejected, nil, deps(StateSuccess), "satisfied"},
		// Dependencies not read (a list that forgot them) never pass for a
		// wait that is over.
		{"waiting, dependencies not read", StateWaitingDependency, nil, nil, "waiting"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Deployment{ID: "x", State: tt.state, StartedAt: tt.started, Dependencies: tt.deps, Error: "why",
				Descriptor: Descriptor{After: make([]string, max(len(tt.deps), 1))}}
			if strings.HasPrefix(tt.name, "cancelled while it waited") {
				d.CancelledFrom = StateWaitingDependency
			}
			got := NewStatus(d).After
			if got == nil {
				t.Fatal("no after section")
			}
			if got.Status != tt.want {
				t.Errorf("after.status = %q, want %q", got.Status, tt.want)
			}
			if tt.state == StateDependencyFailed && got.Reason != "why" {
				t.Errorf("after.reason = %q, want the deploy's error", got.Reason)
			}
		})
	}
}

// cancelled_by names who cancelled a deploy once it ended CANCELLED; a
// request that waits for the next step, or came too late to stop the
// deploy, names nobody.
func TestCancelledByOnlyOnceCancelled(t *testing.T) {
	for _, tt := range []struct {
		state State
		want  string
	}{
		{StateCancelled, "token:ops"},
		{StatePending, ""},
		{StateSuccess, ""},
		{StateError, ""},
	} {
		d := &Deployment{ID: "d", State: tt.state, CancelRequested: true, CancelledBy: "token:ops"}
		got := ""
		if st := NewStatus(d); st.CancelledBy != nil {
			got = *st.CancelledBy
		}
		if got != tt.want || d.Canceller() != tt.want {
			t.Errorf("%s: cancelled_by %q, Canceller %q; want %q", tt.state, got, d.Canceller(), tt.want)
		}
	}
}

// A dependency the viewer may not read (or one removed by retention) has
// no state: null in the status JSON (REST, manent status and list -o json),
// as GraphQL answers, never "".
func TestDependencyStateJSON(t *testing.T) {
	exp := time.Now().Add(time.Hour)
	for _, tt := range []struct {
		dep  Dependency
		want string
	}{
		{Dependency{ID: "hidden"}, `{"id":"hidden","state":null}`},
		{Dependency{ID: "db", State: StateSuccess}, `{"id":"db","state":"SUCCESS"}`},
	} {
		d := &Deployment{ID: "child", State: StateWaitingDependency, AfterExpiresAt: &exp,
			Descriptor: Descriptor{After: []string{tt.dep.ID}}, Dependencies: []Dependency{tt.dep}}
		b, err := json.Marshal(NewStatus(d))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"dependencies":[`+tt.want+`]`) {
			t.Errorf("status JSON %s, want the dependency %s", b, tt.want)
		}
		var back Status
		if err := json.Unmarshal(b, &back); err != nil || back.After == nil || back.After.Dependencies[0] != tt.dep {
			t.Errorf("read back %+v, %v; want %+v", back.After, err, tt.dep)
		}
	}
}

// A custom step's status shows its type and spec_hash, on its run and its
// PENDING placeholder alike, and nothing of its specification.
func TestStatusOfCustomSteps(t *testing.T) {
	spec := &CustomSpec{Name: "db-migrate", Type: StepTypeCommand, Run: CustomRun{Command: []string{"/opt/tools/migrate-9c"}}}
	d := &Deployment{ID: "d", State: StatePending, Plan: Plan{Steps: []PlannedStep{
		{Name: "config", Type: StepTypeStandard},
		{Name: "db-migrate", Type: StepTypeCommand, Spec: spec, SpecHash: "h1", Signature: "sig-9c"},
		{Name: "notify", Type: StepTypeHTTP, Spec: &CustomSpec{Run: CustomRun{URL: "https://hooks-9c.example.com/"}}, SpecHash: "h2"},
	}}, Steps: []Step{{Name: "db-migrate", Position: 1, Type: StepTypeCommand, Kind: KindRun, State: StepRunning}}}
	st := NewStatus(d)
	var got []string
	for _, s := range st.Steps {
		got = append(got, s.Name+" "+s.Type+" "+s.SpecHash)
	}
	if strings.Join(got, ", ") != "config standard , db-migrate command h1, notify http h2" {
		t.Errorf("steps = %v", got)
	}
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"9c", `"spec"`, "signature"} {
		if strings.Contains(string(raw), s) {
			t.Errorf("the status shows %q: %s", s, raw)
		}
	}
}

func TestPlannedStepCustom(t *testing.T) {
	tests := []struct {
		step PlannedStep
		want bool
	}{
		{PlannedStep{Name: "deploy", Type: StepTypeStandard}, false},
		{PlannedStep{Name: "deploy"}, false},
		{PlannedStep{Name: "notify", Type: StepTypeHTTP}, true},
		{PlannedStep{Name: "db-migrate", Type: StepTypeCommand, Spec: &CustomSpec{}}, true},
		// A stored plan altered to reach a custom kind by a standard name.
		{PlannedStep{Name: "http", Type: StepTypeStandard}, true},
		{PlannedStep{Name: "command"}, true},
	}
	for _, tt := range tests {
		if got := tt.step.Custom(); got != tt.want {
			t.Errorf("%+v: Custom() = %v", tt.step, got)
		}
	}
}
