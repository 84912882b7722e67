package ssh

import (
	"slices"
	"strings"
	"time"
)

// entry is a line of a target's state file: a release manent unpacked
// there and has not removed.
type entry struct {
	version    string
	outcome    string
	deployment string
	sha256     string
	at         time.Time
}

// Outcomes of the state file.
const (
	outcomeDeployed   = "deployed"
	outcomeActivated  = "activated"
	outcomeRolledBack = "rolled-back"
)

// stateTime is the format of the times of journal and state lines: fixed
// width, so that they sort as text too.
const stateTime = "2006-01-02T15:04:05.000000000Z"

// parseState reads the "state ..." lines a script showed; a line it cannot
// read is skipped (pruning then leaves its release alone).
func parseState(said []string) []entry {
	var out []entry
	for _, s := range said {
		rest, ok := strings.CutPrefix(s, "state ")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 5 || checkVersion(f[0]) != nil {
			continue
		}
		at, err := time.Parse(stateTime, f[4])
		if err != nil {
			continue
		}
		out = append(out, entry{version: f[0], outcome: f[1], deployment: f[2], sha256: f[3], at: at})
	}
	return out
}

// protectedSuccesses is how many of the last successful releases pruning
// never removes.
const protectedSuccesses = 3

// prunePlan says which releases of a target to remove so that at most keep
// of those manent unpacked remain. It never removes the release in
// service, the previous one (the one current pointed at before, and the
// one activated last before the release in service), or the last
// protectedSuccesses versions of succeeded (manent's record, newest
// first). It removes first the releases manent does not record as
// successful, oldest first, then the oldest successes.
func prunePlan(entries []entry, inService string, previous []string, succeeded []string, keep int) []string {
	excess := len(entries) - keep
	if excess <= 0 {
		return nil
	}
	protected := map[string]bool{inService: true}
	for _, v := range previous {
		protected[v] = true
	}
	var last *entry
	for i, e := range entries {
		if e.version != inService && e.outcome == outcomeActivated && (last == nil || e.at.After(last.at)) {
			last = &entries[i]
		}
	}
	if last != nil {
		protected[last.version] = true
	}
	rank := map[string]int{}
	for _, v := range succeeded {
		if _, ok := rank[v]; !ok {
			rank[v] = len(rank)
		}
	}
	for v, r := range rank {
		if r < protectedSuccesses {
			protected[v] = true
		}
	}
	var candidates []entry
	for _, e := range entries {
		if !protected[e.version] {
			candidates = append(candidates, e)
		}
	}
	slices.SortStableFunc(candidates, func(a, b entry) int {
		ra, aok := rank[a.version]
		rb, bok := rank[b.version]
		switch {
		case aok != bok && !aok:
			return -1
		case aok != bok:
			return 1
		case aok && ra != rb:
			// Both succeeded: the older success (later in the list) first.
			return rb - ra
		}
		return a.at.Compare(b.at)
	})
	var out []string
	for _, e := range candidates[:min(excess, len(candidates))] {
		out = append(out, e.version)
	}
	return out
}
