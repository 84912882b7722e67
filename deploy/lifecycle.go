package deploy

import "slices"

// The lifecycle of a deploy, as the spec's state diagram draws it: the
// states a deploy may start in, and for each state the states it may move
// to. Every change of state in the store is guarded by this table, and the
// database refuses any other (migrations hold a copy, tested against it).

// Initial lists the states a deploy is created in.
var Initial = []State{StateScheduled, StateDelayed, StateWaitingDependency, StateAwaitingApproval, StateEnqueued}

// lifecycle maps a state to the states it may move to. Beside the arrows of
// the spec's diagram: a wait can be cancelled; WAITING_DEPENDENCY and DELAYED
// pass on to the next wait (schedule.at after the dependencies, approvals
// after the time); a deploy whose change ticket cannot be opened ends ERROR
// while it awaits approval; and any deploy not yet final ends ERROR when its
// workflow fails for a reason of manent's own (see the worker log).
var lifecycle = map[State][]State{
	StateWaitingDependency: {StateDelayed, StateAwaitingApproval, StateEnqueued, StateDependencyFailed, StateCancelled, StateError},
	StateDelayed:           {StateAwaitingApproval, StateEnqueued, StateCancelled, StateError},
	StateAwaitingApproval:  {StateEnqueued, StateRejected, StateExpired, StateCancelled, StateError},
	StateEnqueued:          {StatePending, StateCancelled, StateError},
	StatePending:           {StateSuccess, StateError, StateCancelled, StateMaxRecoveryAttemptsExceeded},
}

// Groups of states, named once.
var (
	// Waiting are the states of a deploy its wait workflow holds: it takes
	// no worker slot and has run nothing.
	Waiting = []State{StateWaitingDependency, StateDelayed, StateAwaitingApproval}
	// NotStarted are the states of a deploy that has run nothing yet: a
	// release that stops on failure cancels them.
	NotStarted = []State{StateScheduled, StateDelayed, StateWaitingDependency, StateAwaitingApproval, StateEnqueued}
	// Final are the states nothing follows.
	Final = []State{StateSuccess, StateError, StateCancelled, StateRejected, StateExpired,
		StateDependencyFailed, StateMaxRecoveryAttemptsExceeded}
)

// CanTransition reports whether a deploy in from may move to to.
func CanTransition(from, to State) bool {
	return slices.Contains(lifecycle[from], to)
}

// EnteredFrom lists the states from which a deploy may move to to, in the
// order of States: the guard of the store's transition to it.
func EnteredFrom(to State) []State {
	var out []State
	for _, s := range States {
		if CanTransition(s, to) {
			out = append(out, s)
		}
	}
	return out
}

// Transitions lists every allowed move, in the order of States: what the
// database's copy of the table must hold.
func Transitions() [][2]State {
	var out [][2]State
	for _, from := range States {
		for _, to := range States {
			if CanTransition(from, to) {
				out = append(out, [2]State{from, to})
			}
		}
	}
	return out
}
