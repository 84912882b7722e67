package descriptor

import (
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/yamltree"
)

// rawCommit is the descriptor's commit section.
type rawCommit struct {
	Time string `yaml:"time"`

	time *time.Time
}

// msgChangeTime is what a wrong artifact.createdAt or commit.time gets.
const msgChangeTime = "must be an RFC 3339 time with its offset, such as 2026-10-12T14:00:00Z"

// checkProvenance checks the times the lead time of the change starts from.
// Whether they lie in the future is left to the metrics, which fall back to
// the submission then: parsing knows no clock.
func checkProvenance(errs *yamltree.Errors, d *rawDescriptor) {
	if a := d.Artifact; a != nil && a.CreatedAt != "" {
		a.createdAt = parseChangeTime(errs, "artifact.createdAt", a.CreatedAt)
	}
	if c := d.Commit; c != nil {
		switch {
		case c.Time == "" && !errs.Bad("commit.time"):
			errs.Add("commit", "must give time: leave commit out when it is unknown")
		case c.Time != "":
			c.time = parseChangeTime(errs, "commit.time", c.Time)
		}
	}
}

func parseChangeTime(errs *yamltree.Errors, path, s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		errs.Add(path, msgChangeTime)
		return nil
	}
	t = t.UTC()
	return &t
}

func (c *rawCommit) commit() *deploy.Commit {
	if c == nil || c.time == nil {
		return nil
	}
	return &deploy.Commit{Time: c.time}
}
