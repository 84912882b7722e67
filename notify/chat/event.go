package chat

import (
	"regexp"
	"strconv"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

// Event is the deploy event the engine hands the chat side: its ID is
// stable across retries of a delivery; Step is the failed step of a step
// event, or for an approval event the wave's approval record (approval[2]),
// empty for the deploy's own approval; State is the step's state for a
// step event, the deploy's final state for a finished one.
type Event = deploy.Notice

// wavePattern reads the pass out of the name of a wave's approval record
// (deploy.StepKey.Name of {Step: approval, Pass: n}).
var wavePattern = regexp.MustCompile(`^` + regexp.QuoteMeta(deploy.StepApproval) + `\[([0-9]{1,6})\]$`)

// pass is the wave an approval event asks for, 0 for the deploy's own.
func pass(ev Event) int {
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
	case deploy.NoticeStarted:
		return config.ChatStarted
	case deploy.NoticeApproval:
		return config.ChatApproval
	case deploy.NoticeStep:
		if ev.State == string(deploy.StepError) {
			return config.ChatFailure
		}
	case deploy.NoticeFinished:
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
