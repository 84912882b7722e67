package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/sshfleet"
)

// chaosFindings is what the checks found, each a list of what went wrong.
type chaosFindings struct {
	lost, reruns, duplicated, missing, overlaps, current, twice, records []string
	// failedAttempts are the log lines of the attempts that failed and
	// were retried: shown, not failures of the run.
	failedAttempts []string
	// counts for the table
	success, resumed, resumedAfterWork, retries, unpacks, switches, sessions, takeovers int
}

// check counts what the run did and found, prints the table, and fails the
// test for every deploy lost, completed step run again, effect duplicated
// or missing, and overlap.
func (c *chaos) check() {
	t := c.t
	duration := time.Since(c.started)
	f := &chaosFindings{}
	statuses := c.checkDeploys(f)
	completed := c.completions()
	c.checkLogs(f, statuses, completed)
	c.checkSessions(f, statuses, completed)
	c.checkEffects(f, statuses)
	for _, w := range c.workers {
		f.takeovers += strings.Count(w.output(), "took over the deploys of a dead executor")
	}
	t.Logf("chaos run, profile %s:\n%s", c.p.name, c.table(f, duration))
	if len(f.failedAttempts) > 0 {
		t.Logf("attempts that failed and were retried:\n\t%s", strings.Join(f.failedAttempts, "\n\t"))
	}
	for _, finding := range []struct {
		what string
		list []string
	}{
		{"deploys lost", f.lost}, {"completed steps run again", f.reruns}, {"duplicated effects on targets", f.duplicated},
		{"missing effects on targets", f.missing}, {"overlaps per environment on targets", f.overlaps},
		{"targets not at their environment's last deploy", f.current},
		{"steps run twice at once on a host", f.twice},
		{"overlaps per environment in manent's records", f.records},
	} {
		if len(finding.list) > 0 {
			t.Errorf("%s: %d\n\t%s", finding.what, len(finding.list), strings.Join(finding.list, "\n\t"))
		}
	}
}

func (c *chaos) table(f *chaosFindings, duration time.Duration) string {
	rows := [][2]string{
		{"deploys submitted (3 of a release, 3 waiting: after, schedule.at, approval)", strconv.Itoa(len(c.deploys))},
		{"deploys ended SUCCESS", strconv.Itoa(f.success)},
		{"deploys lost", strconv.Itoa(len(f.lost))},
		{"workers SIGKILLed (at a command on a host, as one ended)", fmt.Sprintf("%d (%d, %d)", c.kills, c.atCommand, c.afterCommand)},
		{"restarted after executor_timeout (takeovers logged)", fmt.Sprintf("%d (%d)", c.lateRestarts, f.takeovers)},
		{"workers that exited by themselves", strconv.Itoa(c.selfExits)},
		{"PostgreSQL crashes and restarts", strconv.Itoa(c.pgRestarts)},
		{"steps cut by a kill and run again (after their work)", fmt.Sprintf("%d (%d)", f.resumed, f.resumedAfterWork)},
		{"step attempts retried", strconv.Itoa(f.retries)},
		{"completed steps run again", strconv.Itoa(len(f.reruns))},
		{"steps run twice at once on a host", strconv.Itoa(len(f.twice))},
		{"effects on targets: unpacks, switches", fmt.Sprintf("%d, %d", f.unpacks, f.switches)},
		{"duplicated effects on targets", strconv.Itoa(len(f.duplicated))},
		{"missing effects on targets", strconv.Itoa(len(f.missing))},
		{"overlaps per environment on targets", strconv.Itoa(len(f.overlaps) + len(f.current))},
		{"overlaps per environment in manent's records", strconv.Itoa(len(f.records))},
		{"commands run on the targets", strconv.Itoa(f.sessions)},
		{"duration", duration.Round(time.Second).String()},
	}
	var b strings.Builder
	b.WriteString("| what | count |\n|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], r[1])
	}
	return b.String()
}

// checkDeploys finds the deploys that did not end SUCCESS (the release's
// own state too) and returns every deploy's status by ID.
func (c *chaos) checkDeploys(f *chaosFindings) map[string]chaosStatus {
	statuses := map[string]chaosStatus{}
	for _, s := range c.list() {
		statuses[s.ID] = s
	}
	for _, d := range c.deploys {
		s, ok := statuses[d.id]
		switch {
		case !ok:
			f.lost = append(f.lost, d.id+" ("+d.kind+"): not listed")
		case s.State != "SUCCESS":
			errText := ""
			if s.Error != nil {
				errText = ": " + *s.Error
			}
			f.lost = append(f.lost, fmt.Sprintf("%s (%s): %s%s", d.id, d.kind, s.State, errText))
		default:
			f.success++
		}
		for _, st := range s.Steps {
			f.retries += max(st.Attempts-1, 0)
		}
	}
	out, errOut, code := c.r.manent(tokenAdmin, "release", "status", chaosRelease, "-o", "json")
	var rel struct {
		State string `json:"state"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rel) != nil || rel.State != "SUCCESS" {
		f.lost = append(f.lost, fmt.Sprintf("release %s: %s (exit %d) %s", chaosRelease, rel.State, code, errOut))
	}
	return statuses
}

// completions are the times DBOS recorded the result of each step of each
// deploy (by "<deploy> <step>"); a step recorded twice is kept with both.
func (c *chaos) completions() map[string][]time.Time {
	rows := pgtest.Strings(c.t, c.dbURL, `SELECT concat_ws(' ', workflow_uuid, function_name, completed_at_epoch_ms)
		FROM dbos.operation_outputs WHERE completed_at_epoch_ms IS NOT NULL`)
	out := map[string][]time.Time{}
	for _, r := range rows {
		f := strings.Fields(r)
		if len(f) != 3 || c.byID[f[0]] == nil {
			continue
		}
		ms, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			c.t.Fatalf("operation output %q", r)
		}
		k := f[0] + " " + f[1]
		out[k] = append(out[k], time.UnixMilli(ms))
	}
	return out
}

// runAfter says whether a run of the step that began at "at" came after
// DBOS had recorded the step's result; the record's time is in whole
// milliseconds, cut down.
func runAfter(completed map[string][]time.Time, deployID, step string, at time.Time) (time.Time, bool) {
	times := completed[deployID+" "+step]
	if len(times) == 0 {
		return time.Time{}, false
	}
	first := slices.MinFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	return first, at.After(first.Add(time.Millisecond))
}

// logLine is a line of `manent logs -o json`.
type logLine struct {
	Time    time.Time `json:"time"`
	Step    string    `json:"step"`
	Message string    `json:"message"`
}

// checkLogs reads each deploy's log: "<step> runs again" is a step cut by a
// kill; a start of a step ("started", "runs again") after DBOS recorded its
// result is a completed step run again; a step recorded twice by DBOS too.
func (c *chaos) checkLogs(f *chaosFindings, statuses map[string]chaosStatus, completed map[string][]time.Time) {
	for k, times := range completed {
		if len(times) > 1 {
			f.reruns = append(f.reruns, fmt.Sprintf("%s: DBOS recorded its result %d times", k, len(times)))
		}
	}
	for _, d := range c.deploys {
		out, errOut, code := c.r.manent(tokenAdmin, "logs", d.id, "-o", "json")
		if code != 0 {
			c.t.Fatalf("manent logs %s: exit %d\n%s", d.id, code, errOut)
		}
		succeeded := map[string]bool{}
		if strings.TrimSpace(out) == "" && statuses[d.id].State == "SUCCESS" {
			c.t.Errorf("%s ended SUCCESS with an empty log", d.id)
		}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if line == "" {
				continue
			}
			var l logLine
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				c.t.Fatalf("log line of %s: %v\n%s", d.id, err, line)
			}
			again := strings.HasPrefix(l.Message, l.Step+" runs again: ")
			if again {
				f.resumed++
				if succeeded[l.Step] {
					f.resumedAfterWork++
				}
			}
			if strings.HasPrefix(l.Message, l.Step+" attempt ") && strings.Contains(l.Message, " failed (temporary error)") {
				f.failedAttempts = append(f.failedAttempts, d.id+" "+l.Message)
			}
			if strings.HasPrefix(l.Message, l.Step+" succeeded in ") {
				succeeded[l.Step] = true
			}
			if l.Step == "" || (!again && l.Message != l.Step+" started") {
				continue
			}
			if rec, after := runAfter(completed, d.id, l.Step, l.Time); after {
				f.reruns = append(f.reruns, fmt.Sprintf("%s %s: %q at %s, DBOS recorded its result at %s", d.id, l.Step,
					l.Message, clock(l.Time), clock(rec)))
			}
		}
		if s := statuses[d.id]; s.State == "SUCCESS" {
			for _, st := range s.Steps {
				if len(completed[d.id+" "+st.Name]) == 0 {
					f.reruns = append(f.reruns, fmt.Sprintf("%s %s: ended %s with no result recorded by DBOS", d.id, st.Name, st.State))
				}
			}
		}
	}
}

// checkSessions reads the hosts' timelines: a command of a step after DBOS
// recorded its result is a completed step run again; two deploys of one
// environment at work on a host at once, an overlap. Every deploy that
// succeeded must show commands of its deploy and activation steps on every
// host: a check that finds none is blind, and fails.
func (c *chaos) checkSessions(f *chaosFindings, statuses map[string]chaosStatus, completed map[string][]time.Time) {
	ids := map[string]bool{}
	for id := range c.byID {
		ids[id] = true
	}
	seen := map[string]bool{}
	for _, u := range c.fleet.Users {
		tl, err := c.fleet.Timeline(u.Name)
		if err != nil {
			c.t.Fatal(err)
		}
		f.sessions += len(tl)
		var sessions []targetSession
		for _, s := range tl {
			ts, ok := attribute(u.Name, s, c.base, ids)
			if !ok {
				continue
			}
			sessions = append(sessions, ts)
			seen[u.Name+" "+ts.deploy+" "+ts.step] = true
			if rec, after := runAfter(completed, ts.deploy, ts.step, ts.Start); after {
				f.reruns = append(f.reruns, fmt.Sprintf("%s %s: %s ran %q at %s, DBOS recorded the step's result at %s",
					ts.deploy, ts.step, u.Name, ts.Command, clock(ts.Start), clock(rec)))
			}
		}
		for _, o := range overlaps(sessions) {
			f.overlaps = append(f.overlaps, u.Name+" "+o)
		}
		for _, o := range twice(sessions, c.killedAt) {
			f.twice = append(f.twice, u.Name+" "+o)
		}
		for _, d := range c.deploys {
			for _, step := range []string{"deploy", "activation"} {
				if statuses[d.id].State == "SUCCESS" && !seen[u.Name+" "+d.id+" "+step] {
					c.t.Errorf("the timeline of %s has no command of %s's %s step: the checks of the targets are blind", u.Name, d.id, step)
				}
			}
		}
	}
}

// checkEffects counts each deploy's effects on each host: one unpack and
// one switch for each deploy that succeeded, none twice; the effects of
// two deploys of an environment never cross; and current ends at the
// release of the environment's last deploy.
func (c *chaos) checkEffects(f *chaosFindings, statuses map[string]chaosStatus) {
	effects := c.watch.all(c.t, filepath.Join(c.fleet.Users[0].Home, c.base, "e0"))
	versionOf := map[string]string{}
	for _, d := range c.deploys {
		versionOf[d.version] = d.id
	}
	count := map[string]int{} // "<host> <op> <version>"
	last := map[string]string{}
	for _, e := range effects {
		count[e.host+" "+e.op+" "+e.version]++
		if e.op == effectUnpack {
			f.unpacks++
		} else {
			f.switches++
			last[e.host+" "+e.env] = e.version
		}
		if _, ok := versionOf[e.version]; !ok {
			f.duplicated = append(f.duplicated, fmt.Sprintf("%s %s: %s of an unknown release %q", e.host, e.env, e.op, e.version))
		}
	}
	for _, u := range c.fleet.Users {
		for _, d := range c.deploys {
			for _, op := range []string{effectUnpack, effectSwitch} {
				n := count[u.Name+" "+op+" "+d.version]
				switch {
				case n > 1:
					f.duplicated = append(f.duplicated, fmt.Sprintf("%s: %s %s %d times on %s", d.id, op, d.version, n, u.Name))
				case n == 0 && statuses[d.id].State == "SUCCESS":
					f.missing = append(f.missing, fmt.Sprintf("%s: no %s of %s on %s", d.id, op, d.version, u.Name))
				}
			}
		}
	}
	f.overlaps = append(f.overlaps, interleaved(effects, versionOf)...)
	c.checkCurrent(f, statuses, last)
	c.checkRecords(f, statuses)
}

// checkRecords: manent's own records say the same, the deploys of an
// environment ran one after the other (from started_at to finished_at).
func (c *chaos) checkRecords(f *chaosFindings, statuses map[string]chaosStatus) {
	var spans []targetSession
	for _, d := range c.deploys {
		s := statuses[d.id]
		if s.StartedAt == nil || s.FinishedAt == nil {
			continue
		}
		spans = append(spans, targetSession{env: d.env, deploy: d.id,
			Session: sshfleet.Session{Start: *s.StartedAt, End: *s.FinishedAt, Ended: true}})
	}
	f.records = append(f.records, overlaps(spans)...)
}

// checkCurrent: on every host, each environment's last switch and its
// current link are the release of its deploy that finished last.
func (c *chaos) checkCurrent(f *chaosFindings, statuses map[string]chaosStatus, last map[string]string) {
	lastDeploy := map[string]*chaosDeploy{}
	for _, d := range c.deploys {
		s := statuses[d.id]
		if s.State != "SUCCESS" || s.FinishedAt == nil {
			continue
		}
		if p := lastDeploy[d.env]; p == nil || statuses[p.id].FinishedAt.Before(*s.FinishedAt) {
			lastDeploy[d.env] = d
		}
	}
	envs := make([]string, 0, len(lastDeploy))
	for env := range lastDeploy {
		envs = append(envs, env)
	}
	sort.Strings(envs)
	for _, env := range envs {
		d := lastDeploy[env]
		for _, u := range c.fleet.Users {
			link := currentLink(c.t, filepath.Join(u.Home, c.base, env))
			if link != "releases/"+d.version || last[u.Name+" "+env] != d.version {
				f.current = append(f.current, fmt.Sprintf("%s %s: current -> %q, last switch to %q; the last deploy to end is %s (%s)",
					u.Name, env, link, last[u.Name+" "+env], d.id, d.version))
			}
		}
	}
}
