package chat

import (
	"regexp"
	"strconv"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

// EventType is what happened to a deploy.
//
// Event is a copy of the engine's deploy event, kept here until the
// engine's pipeline of events lands: the integrator replaces it with
// deploy.Event, whose fields it mirrors.
type EventType string

// The events of a deploy's pipeline of events.
const (
	EventStarted  EventType = "started"
	EventStep     EventType = "step"
	EventApproval EventType = "approval"
	EventFinished EventType = "finished"
)

// Event is one event of a deploy. ID is stable across retries of its
// delivery. Step is the step of a step event, or for an approval event
// the wave's approval record (approval[2]), empty for the deploy's own
// approval. State is the step's state for a step event, the deploy's
// final state for a finished one.
type Event struct {
	ID           string
	Type         EventType
	DeploymentID string
	Step         string
	State        string
	At           time.Time
}

// wavePattern reads the pass out of the name of a wave's approval record
// (deploy.StepKey.Name of {Step: approval, Pass: n}).
var wavePattern = regexp.MustCompile(`^` + regexp.QuoteMeta(deploy.StepApproval) + `\[([0-9]{1,6})\]$`)

// pass is the wave an approval event asks for, 0 for the deploy's own.
func (ev Event) pass() int {
	m := wavePattern.FindStringSubmatch(ev.Step)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// kind is the chat event (config.ChatEvents) a deploy event is, "" when no
// message is sent for it: a step that did not fail, a dry run (it changes
// nothing anyone must hear of).
func kind(ev Event, st deploy.Status) string {
	if st.DryRun {
		return ""
	}
	switch ev.Type {
	case EventStarted:
		return config.ChatStarted
	case EventApproval:
		return config.ChatApproval
	case EventStep:
		if ev.State == string(deploy.StepError) {
			return config.ChatFailure
		}
	case EventFinished:
		switch deploy.State(ev.State) {
		case deploy.StateSuccess:
			return config.ChatSuccess
		case deploy.StateError:
			if rolledBack(st) {
				return config.ChatRollback
			}
			return config.ChatFailure
		case "":
		default:
			return config.ChatFailure
		}
	}
	return ""
}

// rolledBack reports whether a failed deploy's rollback ran (or runs):
// one not needed or disabled is no rollback to speak of.
func rolledBack(st deploy.Status) bool {
	if st.Rollback == nil {
		return false
	}
	switch st.Rollback.State {
	case deploy.RollbackCompleted, deploy.RollbackFailed, deploy.RollbackRunning:
		return true
	}
	return false
}
