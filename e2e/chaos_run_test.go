package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The events of a chaos run.
const (
	eventKill = "kill"
	eventPG   = "pg"
)

// specialDeploys are the deploys that are not plain: the release's three,
// the one after another, the delayed one and the one awaiting approval.
const specialDeploys = 6

// run starts the processes, then submits the deploys in one batch per
// event, each batch followed by its event: a worker killed with SIGKILL
// (and restarted), or PostgreSQL crashed (and started again). A third of
// the plain deploys go in the first batch, so that the queues of the
// environments are never empty for long; the last batch comes before the
// last event. Then it waits for every deploy to end.
func (c *chaos) run() {
	c.started = time.Now()
	c.r.srv.start()
	for _, w := range c.workers {
		w.start()
	}
	events := c.events()
	plain := c.p.deploys - specialDeploys
	first := plain / 3
	submitted := 0
	for i, ev := range events {
		// The rest spread over the events, the last ones before the last.
		upTo := first + (plain-first)*i/max(len(events)-1, 1)
		for ; submitted < upTo; submitted++ {
			c.submitPlain(submitted)
		}
		c.submitSpecials(i)
		if i == len(events)/2 {
			c.approve()
		}
		c.supervise()
		what := ""
		switch ev {
		case eventKill:
			what = c.kill()
		case eventPG:
			what = c.restartPG()
		}
		c.t.Logf("%6s event %d of %d: %s", time.Since(c.started).Round(100*time.Millisecond), i+1, len(events), what)
	}
	c.waitAllEnded()
}

// events are the kills and PostgreSQL restarts in a random order; the
// first is a kill (PostgreSQL goes away once deploys are under way).
func (c *chaos) events() []string {
	var out []string
	for range c.p.kills {
		out = append(out, eventKill)
	}
	for range c.p.pgRestarts {
		out = append(out, eventPG)
	}
	rest := out[1:]
	c.rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	return out
}

func (c *chaos) submitPlain(n int) {
	id := fmt.Sprintf("chaos-%03d", n)
	c.submit(c.newDeploy(id, c.randomEnv(), "plain", ""))
}

// submitSpecials submits the special deploys of batch i: the one awaiting
// approval and the delayed one first, the release in the second batch, the
// one waiting for another in the third (its dependency is the plain deploy
// submitted last).
func (c *chaos) submitSpecials(i int) {
	switch i {
	case 0:
		c.submit(c.newDeploy("chaos-approval", "gov", "approval", ""))
		at := time.Now().Add(c.p.delayedBy).UTC().Truncate(time.Second)
		c.submit(c.newDeploy("chaos-delayed", c.randomEnv(), "delayed", "schedule:\n  at: "+at.Format(time.RFC3339)+"\n"))
	case 1:
		c.submitRelease()
	case 2:
		dep := c.deploys[len(c.deploys)-1].id
		c.submit(c.newDeploy("chaos-after", c.randomEnv(), "after", "after: ["+dep+"]\n"))
	}
}

// submitRelease submits a release of three deploys: b and c after a.
func (c *chaos) submitRelease() {
	doc := "apiVersion: manent/v1\nkind: Release\nid: " + chaosRelease + "\ndeploys:\n"
	for _, m := range []struct{ name, after string }{{"a", ""}, {"b", "a"}, {"c", "a"}} {
		path := c.newDeploy(chaosRelease+"-"+m.name, c.randomEnv(), "release", "")
		doc += fmt.Sprintf("  - name: %s\n    file: %s\n", m.name, filepath.Base(path))
		if m.after != "" {
			doc += "    after: [" + m.after + "]\n"
		}
	}
	path := filepath.Join(c.r.dir, "deploys", chaosRelease+".yml")
	write(c.t, path, doc)
	if _, errOut, code := c.r.manent(tokenCI, "release", "submit", "-f", path, "--no-wait"); code != 0 {
		c.t.Fatalf("manent release submit: exit %d\n%s", code, errOut)
	}
}

func (c *chaos) submit(path string) {
	c.t.Helper()
	c.r.submit(path)
}

// approve waits for the deploy that needs an approval to ask for it, then
// gives it (demo-admin; demo-ci submitted it).
func (c *chaos) approve() {
	c.r.waitState("chaos-approval", "AWAITING_APPROVAL")
	if out, errOut, code := c.r.manent(tokenAdmin, "approve", "chaos-approval", "--comment", "half-way through the chaos"); code != 0 {
		c.t.Fatalf("manent approve: exit %d\n%s%s", code, out, errOut)
	}
}

// supervise restarts a worker that exited by itself, as a supervisor
// would: a worker that learns another took over its deploys stops. The api
// process is never killed: its exit fails the run.
func (c *chaos) supervise() {
	select {
	case <-c.r.srv.exited:
		c.t.Fatalf("the api process exited:\n%s", lastLines(c.r.srv.output(), 60))
	default:
	}
	for i, w := range c.workers {
		select {
		case <-w.exited:
			c.selfExits++
			c.t.Logf("worker-%d exited by itself (exit %d); restarted:\n%s", i+1, w.exitCode(), lastLines(w.output(), 5))
			w.start()
		default:
		}
	}
}

// The moments of a kill.
const (
	// atCommand: while a host runs a command of a deploy, a step cut in
	// the middle of its work.
	atCommand = iota
	// afterCommand: the moment a host's command ended, when the step may
	// be recording its end: the cut between its work, its record and
	// DBOS's.
	afterCommand
	// whileRunning: at a random moment while a deploy runs.
	whileRunning
	killMoments
)

// kill SIGKILLs one of the workers, picked at random, at one of the
// moments above. The worker is restarted at once, or after a delay longer
// than engine.executor_timeout, when the other worker takes its deploys
// over first.
func (c *chaos) kill() string {
	n := c.rng.IntN(len(c.workers))
	w := c.workers[n]
	when := c.rng.IntN(killMoments)
	late := c.rng.IntN(2) == 0
	delay := time.Duration(c.rng.Int64N(int64(time.Second)))
	restart := time.Duration(c.rng.Int64N(int64(500 * time.Millisecond)))
	if late {
		restart = chaosTakeover + time.Second + time.Duration(c.rng.Int64N(int64(2*time.Second)))
	}
	moment := "while a deploy ran"
	switch {
	case when == atCommand && c.waitCommand(false):
		c.atCommand++
		moment = "at a command on a host"
	case when == afterCommand && c.waitCommand(true):
		c.afterCommand++
		moment = "as a command on a host ended"
	default:
		time.Sleep(delay) // the moment of the kill, not a wait for anything
		c.waitRunning()
	}
	c.killedAt = append(c.killedAt, time.Now())
	w.kill()
	c.kills++
	if late {
		c.lateRestarts++
	}
	time.Sleep(restart) // the supervisor's restart delay
	w.start()
	return fmt.Sprintf("worker-%d killed %s, restarted %s later", n+1, moment, restart.Round(time.Millisecond))
}

// restartPG crashes PostgreSQL while a deploy runs, and starts it again
// after an outage of one to four seconds.
func (c *chaos) restartPG() string {
	c.waitRunning()
	time.Sleep(time.Duration(c.rng.Int64N(int64(time.Second)))) // the moment of the crash
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := c.pg.Crash(ctx); err != nil {
		c.t.Fatal(err)
	}
	outage := time.Second + time.Duration(c.rng.Int64N(int64(3*time.Second)))
	time.Sleep(outage) // the outage
	if err := c.pg.Restart(ctx); err != nil {
		c.t.Fatal(err)
	}
	c.pgRestarts++
	return fmt.Sprintf("PostgreSQL crashed, started again %s later", outage.Round(time.Millisecond))
}

// waitRunning waits until a deploy is running, or none can (the others
// wait for their time or their approval, or have ended).
func (c *chaos) waitRunning() {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		runnable := false
		for _, d := range c.list() {
			switch d.State {
			case "PENDING":
				return
			case "ENQUEUED":
				runnable = true
			}
		}
		if !runnable {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("deploys are queued and none has run for 2 minutes\n%s", c.outputs())
		}
		time.Sleep(100 * time.Millisecond) // the state has no event across deploys: polled
	}
}

// waitCommand waits up to 10 seconds for a host of the fleet to start a
// command (ended false) or to end one (ended true), and says whether one
// did (and, when started, still runs).
func (c *chaos) waitCommand(ended bool) bool {
	if c.tails == nil {
		for _, u := range c.fleet.Users {
			c.tails = append(c.tails, &timelineTail{path: c.fleet.TimelinePath(u.Name), open: map[string]bool{}})
		}
	}
	for _, tl := range c.tails {
		tl.read() // what ran before
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, tl := range c.tails {
			if started, done := tl.read(); (!ended && started) || (ended && done) {
				return true
			}
		}
		// A command lasts milliseconds: the timelines are read every one.
		time.Sleep(time.Millisecond)
	}
	return false
}

// timelineTail follows a host's timeline file from where it was last read.
type timelineTail struct {
	path    string
	offset  int64
	partial string
	// open are the PIDs of the sessions started and not ended.
	open map[string]bool
}

// read reads what was appended and says whether a session started since
// the last read and still runs, and whether one ended.
func (tl *timelineTail) read() (started, ended bool) {
	f, err := os.Open(tl.path)
	if err != nil {
		return false, false
	}
	defer func() { _ = f.Close() }() // read only
	b, err := io.ReadAll(io.NewSectionReader(f, tl.offset, 1<<40))
	if err != nil {
		return false, false
	}
	tl.offset += int64(len(b))
	lines := strings.Split(tl.partial+string(b), "\n")
	tl.partial = lines[len(lines)-1]
	begun := map[string]bool{}
	for _, l := range lines[:len(lines)-1] {
		f := strings.SplitN(l, " ", 3)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "start":
			tl.open[f[1]], begun[f[1]] = true, true
		case "end":
			delete(tl.open, f[1])
			ended = true
		}
	}
	for pid := range begun {
		if tl.open[pid] {
			started = true
		}
	}
	return started, ended
}

// waitAllEnded waits for every deploy submitted to end.
func (c *chaos) waitAllEnded() {
	deadline := time.Now().Add(c.p.settle)
	for {
		c.supervise()
		var waiting []string
		states := map[string]string{}
		for _, d := range c.list() {
			states[d.ID] = d.State
		}
		for _, d := range c.deploys {
			if !terminal(states[d.id]) {
				waiting = append(waiting, d.id+" "+states[d.id])
			}
		}
		if len(waiting) == 0 {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%d deploys had not ended %s after the last event: %s\n%s", len(waiting), c.p.settle,
				strings.Join(waiting, ", "), c.outputs())
		}
		time.Sleep(500 * time.Millisecond) // the state has no event across deploys: polled
	}
}

// outputs are the last lines of every process, for a failure's message.
func (c *chaos) outputs() string {
	var b strings.Builder
	fmt.Fprintf(&b, "api:\n%s\n", lastLines(c.r.srv.output(), 40))
	for i, w := range c.workers {
		fmt.Fprintf(&b, "worker-%d:\n%s\n", i+1, lastLines(w.output(), 40))
	}
	return b.String()
}
