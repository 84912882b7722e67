package deploy

import (
	"fmt"
	"regexp"
	"time"
)

// manent names some deploys itself: the deploys of a release without an id
// of their own, the rollback deploys of a release (onFailure: rollback) and
// the deploy of every tick of a recurring schedule. Anyone who can guess such
// an ID may try to take it first, in any tenant. A deploy found under a
// derived ID is therefore taken as the derived deploy only when it records
// the same origin (Derived.Is); anything else is an error its owner sees
// (Derived.Taken), and nothing of the deploy found is used or shown. The
// ID forms are written here once: they are stored, and descriptor refuses
// user IDs of the tick form.

// ReleaseMemberID is the ID of a deploy of a release whose descriptor has no
// id: <release>.<name>.
func ReleaseMemberID(release, name string) string { return release + "." + name }

// ReleaseRollbackID is the ID of the rollback deploy of the deploy name of a
// release with onFailure: rollback: <release>.rollback.<name>.
func ReleaseRollbackID(release, name string) string { return release + ".rollback." + name }

// tickLayout is the UTC time of a tick in its deploy's ID.
const tickLayout = "20060102-150405"

// tickIDPattern matches the IDs of the form of TickID.
var tickIDPattern = regexp.MustCompile(`@[0-9]{8}-[0-9]{6}$`)

// TickID is the ID of the deploy a tick of the recurring schedule name
// starts: <name>@<yyyymmdd-hhmmss> (UTC).
func TickID(name string, tick time.Time) string {
	return name + "@" + tick.UTC().Format(tickLayout)
}

// IsTickID reports whether id has the form of TickID: only a schedule's tick
// may create such a deploy, so no submission may name one so.
func IsTickID(id string) bool { return tickIDPattern.MatchString(id) }

// TickSchedule is the name of the recurring schedule whose tick id is, when
// id has the form of TickID.
func TickSchedule(id string) (string, bool) {
	if !IsTickID(id) {
		return "", false
	}
	return id[:len(id)-len("@"+tickLayout)], true
}

// Derived is a deploy under an ID manent derived, as it must be recorded:
// its resource, and the release, rollback or schedule it was created for.
type Derived struct {
	ID       string
	Resource Resource
	// Release is the release of a deploy of a release or of its rollback.
	Release string
	// RollbackOf is the deploy a rollback deploy undoes.
	RollbackOf string
	// Schedule is the recurring schedule whose tick started the deploy.
	Schedule string
}

// Is reports whether d is the deploy manent created under w.ID for w's
// purpose: the same tenant, application and environment, and the same
// origin. A deploy submitted by someone under that ID never is.
func (w Derived) Is(d *Deployment) bool {
	return d != nil && d.ID == w.ID && d.Resource() == w.Resource &&
		d.Release == w.Release && d.RollbackOf == w.RollbackOf && d.Schedule == w.Schedule
}

// Taken is the error of a derived ID that another deploy holds: it names
// the ID and the purpose, never anything of the deploy that holds it.
func (w Derived) Taken() *Error {
	return Errorf(ECONFLICT, "deploy ID %q is already taken by a deploy manent did not create for %s", w.ID, w.purpose())
}

func (w Derived) purpose() string {
	switch {
	case w.Schedule != "":
		return fmt.Sprintf("a tick of schedule %s", w.Schedule)
	case w.RollbackOf != "" && w.Release != "":
		return fmt.Sprintf("the rollback of %s in release %s", w.RollbackOf, w.Release)
	case w.RollbackOf != "":
		return fmt.Sprintf("the rollback of %s", w.RollbackOf)
	case w.Release != "":
		return fmt.Sprintf("release %s", w.Release)
	}
	return "this purpose"
}
