package deploy

import (
	"fmt"
	"strings"
)

// Explain says in words what the decision asks of a deploy of a, for the
// people who approve it: built from the decision's structure, never from
// its reason text, so a Rego policy's decision reads the same.
func (d Decision) Explain(a Artifact) string {
	var parts []string
	if r := d.Approvals; r != nil {
		s := fmt.Sprintf("needs %d %s from %s other than the requester", r.Count, plural(r.Count, "approval", "approvals"),
			plural(r.Count, "an identity", "identities"))
		var who []string
		if len(r.Groups) > 0 {
			who = append(who, "in "+plural(len(r.Groups), "group ", "one of the groups ")+strings.Join(r.Groups, ", "))
		}
		if len(r.Roles) > 0 {
			who = append(who, "holding "+plural(len(r.Roles), "role ", "one of the roles ")+strings.Join(r.Roles, ", "))
		}
		if len(who) > 0 {
			s += " " + strings.Join(who, " or ")
		}
		if r.Expiry > 0 {
			s += " within " + FormatDuration(r.Expiry)
		}
		parts = append(parts, s)
	}
	if p := d.Promotion; p != nil {
		parts = append(parts, fmt.Sprintf("%s must have run %s %s successfully — it did: %s", p.From, a.Name, a.Version, p.SatisfiedBy))
	}
	if c := d.Change; c != nil {
		parts = append(parts, fmt.Sprintf("needs a change ticket approved through %s", c.Connector))
	}
	if f := d.Freeze; f != nil && f.Overridden {
		parts = append(parts, fmt.Sprintf("accepted in freeze window %s with an override: %s", f.Window, f.Reason))
	}
	if len(parts) == 0 {
		return "no governance rule asks anything of it"
	}
	return strings.Join(parts, "; ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
