package ssh

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"manent.dev/manent/deploy"
)

// entry is a line of a target's state file: a release manent unpacked
// there (or found there, unpacked by another environment) for an owner,
// and has not removed for it.
type entry struct {
	version    string
	outcome    string
	deployment string
	sha256     string
	at         time.Time
	// owner is the tenant, application and environment whose line it
	// is (stateOwner); "" for a line written before lines had owners,
	// which is nobody's to prune.
	owner string
}

// stateOwner is whose lines of a state file a request writes and prunes:
// its tenant, application and environment, each escaped so that the
// owner is one field of a line. Two environments that deploy to one
// directory each keep and prune their own releases, and a release both
// record stays until neither does.
func stateOwner(req deploy.PluginRequest) string {
	return url.PathEscape(req.Tenant) + "/" + url.PathEscape(req.Application) + "/" + url.PathEscape(req.Environment)
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
		if (len(f) != 5 && len(f) != 6) || checkVersion(f[0]) != nil {
			continue
		}
		at, err := time.Parse(stateTime, f[4])
		if err != nil {
			continue
		}
		e := entry{version: f[0], outcome: f[1], deployment: f[2], sha256: f[3], at: at}
		if len(f) == 6 {
			e.owner = f[5]
		}
		out = append(out, e)
	}
	return out
}

// protectedSuccesses is how many of the last successful releases pruning
// never removes.
const protectedSuccesses = 3

// prunePlan says which of owner's releases of a target to remove so that
// at most keep of owner's lines remain: the lines of other owners are
// neither counted nor removed (and removeScript keeps a release another
// owner records). It never removes the release in service, the previous
// one (the one current pointed at before, and the one activated last
// before the release in service), or the last protectedSuccesses
// versions of succeeded (manent's record, newest first). It removes first
// the releases manent does not record as successful, oldest first, then
// the oldest successes.
func prunePlan(all []entry, owner, inService string, previous []string, succeeded []string, keep int) []string {
	var entries []entry
	for _, e := range all {
		if e.owner == owner {
			entries = append(entries, e)
		}
	}
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
