package deploy

import "fmt"

// The words of the end of a deploy that another identity decided (a
// cancel, a rejection), in one place: the store writes them for the deploys
// it ends at once, the engine for the runs it stops.

// CancelledWhile is the error of a deploy cancelled before it ran, while in
// state: "cancelled by token:ci while WAITING_DEPENDENCY".
func CancelledWhile(by string, state State) string {
	return fmt.Sprintf("%s while %s", cancelledBy(by), state)
}

// CancelledAt is the error of a run stopped at a step boundary: after the
// operation done (none when the first one did not start) and before next,
// which did not start: "cancelled by token:ci after step deploy, before
// post-test".
func CancelledAt(by, done, next string) string {
	if done == "" {
		return fmt.Sprintf("%s before step %s", cancelledBy(by), next)
	}
	return fmt.Sprintf("%s after step %s, before %s", cancelledBy(by), done, next)
}

func cancelledBy(by string) string {
	if by == "" {
		return "cancelled"
	}
	return "cancelled by " + by
}

// RejectionReason is the error of a deploy a rejection ended: "rejected by
// oidc:bob: not during the launch".
func RejectionReason(a Approval) string {
	reason := "rejected by " + a.Identity
	if a.Comment != "" {
		reason += ": " + a.Comment
	}
	return reason
}
