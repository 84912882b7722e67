package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/plugins/local"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
)

// The process TestRolloutOutcomesSurviveSIGKILL starts runs one phase of
// it: these variables tell it which, and where everything is.
const (
	killPhaseEnv   = "MANENT_TEST_KILL_PHASE" // plain, kill or recover
	killDirEnv     = "MANENT_TEST_KILL_DIR"
	killURLEnv     = "MANENT_TEST_KILL_DATABASE"
	killControlEnv = "MANENT_TEST_KILL_CONTROL"
	killFleets     = 200
)

// TestRolloutOutcomesSurviveSIGKILL is the seeded property test of the
// rollouts against crashes: 200 random fleets (waves or percentages,
// batch sizes, exclusions, targets whose deploy or activation fails,
// max_failures, HTTP or Prometheus gates that pass, fail or get no data,
// rollback on or off) each deploy twice, in worker processes of their own:
// once uninterrupted, and once killed with SIGKILL at a point picked at
// random among the operations the uninterrupted run made (a plugin call,
// before or after its effect, or a gate's request), then recovered by a
// new process. For every fleet:
//   - the per-target outcome table (outcome, wave, batch, state), the
//     waves' and gates' states, the deploy's and the rollback's ends and
//     each target's release in service and journal are the uninterrupted
//     run's;
//   - no batch starts before the previous one ended, and none has more
//     targets than its wave's batch: never more than a batch out of
//     service at once;
//   - a wave whose gate got no data, under no_data: fail, never lets a
//     later wave start;
//   - an excluded target is never touched.
//
// All fleets of a phase run at once, each in its environment, so the whole
// test costs three worker processes. The seed is fixed: a failure replays.
func TestRolloutOutcomesSurviveSIGKILL(t *testing.T) {
	if phase := os.Getenv(killPhaseEnv); phase != "" {
		runKillPhase(t, phase)
		return
	}
	dir := t.TempDir()
	url := pgtest.URL(t)
	rng := rand.New(rand.NewPCG(2026, 12))
	fleets := make([]*killFleet, killFleets)
	for i := range fleets {
		fleets[i] = randomKillFleet(rng, i)
	}
	ctl := newKillControl(fleets)
	srv := httptest.NewServer(ctl)
	t.Cleanup(srv.Close)
	for _, f := range fleets {
		for _, env := range []string{f.env("p"), f.env("k")} {
			writeFile(t, filepath.Join(dir, "envconfig/demo/web", env+".yml"), f.config(env, srv.URL))
		}
	}
	writeRelease(t, dir, "1.0.0")
	manifest, err := json.Marshal(fleets)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "fleets.json"), string(manifest))
	child := func(phase string) *killChild {
		return startKillChild(t, phase, dir, url, srv.URL)
	}

	// The uninterrupted runs, which also count each fleet's operations.
	ctl.setPhase("plain")
	child("plain").waitSuccess(t)
	for _, f := range fleets {
		ctl.pickKill(rng, f)
	}

	// The same fleets again, each held at its kill point; when all are
	// held (or ended before it), the worker dies.
	ctl.setPhase("kill")
	killed := child("kill")
	ctl.waitAllHeld(t, killed, dir, url)
	killed.kill(t)
	ctl.setPhase("recover")
	child("recover").waitSuccess(t)

	ctx := context.Background()
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	store := postgres.NewStore(db)
	kinds := map[string]int{}
	for _, f := range fleets {
		kinds[ctl.killKind(f)]++
		plain, err := store.Get(ctx, f.id("p"))
		if err != nil {
			t.Fatal(err)
		}
		killedRun, err := store.Get(ctx, f.id("k"))
		if err != nil {
			t.Fatal(err)
		}
		a, b := killOutcomes(plain, dir, f.env("p")), killOutcomes(killedRun, dir, f.env("k"))
		if !slices.Equal(a, b) {
			t.Errorf("fleet %d (%s), killed %s:\nafter the SIGKILL\n  %s\nuninterrupted\n  %s", f.Index, f.Summary,
				ctl.killKind(f), strings.Join(b, "\n  "), strings.Join(a, "\n  "))
		}
		for _, run := range []string{"p", "k"} {
			d := plain
			if run == "k" {
				d = killedRun
			}
			for _, msg := range ctl.checkEvents(f, run, d) {
				t.Errorf("fleet %d (%s), %s run: %s", f.Index, f.Summary, map[string]string{"p": "uninterrupted", "k": "killed"}[run], msg)
			}
		}
	}
	t.Logf("kill points: %v", kinds)
}

// killFleet is one random fleet; its JSON goes to the worker processes.
type killFleet struct {
	Index   int          `json:"index"`
	Targets []killTarget `json:"targets"`
	// Rollout is the rollout section of its environment configuration
	// without the gates (which need the control server's address).
	Rollout string `json:"rollout"`
	// Gate: none, http (fails on targets named *-gf), or prom-pass,
	// prom-fail, prom-empty (no series).
	Gate     string `json:"gate"`
	NoData   string `json:"no_data"`
	Rollback bool   `json:"rollback"`
	// Batch is the batch size of each wave by name (0: the whole wave).
	Batch   map[string]int `json:"batch"`
	Summary string         `json:"summary"`
}

type killTarget struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
}

func (f *killFleet) env(run string) string { return fmt.Sprintf("%s%03d", run, f.Index) }
func (f *killFleet) id(run string) string  { return "d-" + f.env(run) }

func randomKillFleet(rng *rand.Rand, i int) *killFleet {
	f := &killFleet{Index: i, Batch: map[string]int{}}
	waves := 1 + rng.IntN(3)
	percentages := rng.IntN(5) == 0
	for j := range 2 + rng.IntN(4) {
		labels := map[string]string{"w": strconv.Itoa(1 + rng.IntN(waves))}
		switch rng.IntN(10) {
		case 0:
			labels["fail"] = "deploy"
		case 1:
			labels["fail"] = "activate"
		case 2:
			labels["maintenance"] = "true"
		}
		name := fmt.Sprintf("t%d", j+1)
		if rng.IntN(5) == 0 {
			name += "-gf"
		}
		f.Targets = append(f.Targets, killTarget{Name: name, Labels: labels})
	}
	var b strings.Builder
	b.WriteString("  exclude: {labels: {maintenance: \"true\"}}\n")
	fmt.Fprintf(&b, "  max_failures: %d\n", rng.IntN(2))
	if rng.IntN(4) == 0 {
		b.WriteString("  bake: 1s\n")
	} else {
		b.WriteString("  bake: 0s\n")
	}
	if percentages {
		b.WriteString("  percentages: [50, 100]\n")
	} else {
		b.WriteString("  waves:\n")
		for w := 1; w <= waves; w++ {
			name := fmt.Sprintf("w%d", w)
			fmt.Fprintf(&b, "    - {name: %s", name)
			if w < waves {
				fmt.Fprintf(&b, ", select: {labels: {w: \"%d\"}}", w)
			}
			if n := rng.IntN(3); n > 0 {
				fmt.Fprintf(&b, ", batch: %d", n)
				f.Batch[name] = n
			}
			b.WriteString("}\n")
		}
	}
	f.Gate = []string{"none", "http", "http", "prom-pass", "prom-fail", "prom-empty", "prom-empty"}[rng.IntN(7)]
	f.NoData = []string{"fail", "pass"}[rng.IntN(2)]
	fmt.Fprintf(&b, "  no_data: %s\n", f.NoData)
	f.Rollout = b.String()
	f.Rollback = rng.IntN(3) > 0
	var names []string
	for _, tg := range f.Targets {
		names = append(names, tg.Name+fmt.Sprint(tg.Labels))
	}
	f.Summary = fmt.Sprintf("waves %d, percentages %t, gate %s, no_data %s, rollback %t, targets %v", waves, percentages,
		f.Gate, f.NoData, f.Rollback, names)
	return f
}

// config is the environment configuration of the fleet's run env, its
// gates calling the control server at control.
func (f *killFleet) config(env, control string) string {
	var b strings.Builder
	b.WriteString("plugin: kill\ntargets:\n")
	for _, tg := range f.Targets {
		labels, _ := json.Marshal(tg.Labels)
		fmt.Fprintf(&b, "  - {path: targets/%s/%s, labels: %s}\n", env, tg.Name, labels)
	}
	b.WriteString("rollout:\n" + f.Rollout)
	switch f.Gate {
	case "http":
		fmt.Fprintf(&b, "  gates:\n    - {name: health, http: {url: %q, timeout: 5m}}\n",
			control+"/gate/"+env+"?target={{ .Target.Path }}")
	case "prom-pass", "prom-fail", "prom-empty":
		fmt.Fprintf(&b, "  gates:\n    - {name: errors, prometheus: {url: %q, query: %s, max: 0.5, timeout: 5m}}\n",
			control+"/prom/"+env+"/", env)
	}
	if f.Rollback {
		b.WriteString("rollback:\n  enabled: true\n  on: [deploy, activation]\n")
	}
	return b.String()
}

// killEvent is an operation as the control server saw it: a plugin call's
// begin and end, or a gate's request.
type killEvent struct {
	Env     string   `json:"env"`
	Op      string   `json:"op"` // checkpoint, deploy, activate, rollback, gate
	Key     string   `json:"key"`
	Targets []string `json:"targets"`
	Phase   string   `json:"phase"` // begin, end
	// Run is the phase of the test that saw it (plain, kill, recover).
	Run string `json:"-"`
}

// pass and batch of the event's operation, from its idempotency key
// (<deploy>:<step>:p<pass>:b<batch>:<kind>); 0 for a gate's request.
func (e killEvent) passBatch() (int, int) {
	parts := strings.Split(e.Key, ":")
	if len(parts) < 5 {
		return 0, 0
	}
	p, _ := strconv.Atoi(strings.TrimPrefix(parts[2], "p"))
	b, _ := strconv.Atoi(strings.TrimPrefix(parts[3], "b"))
	return p, b
}

func (e killEvent) compensation() bool {
	parts := strings.Split(e.Key, ":")
	return len(parts) >= 5 && parts[4] == string(deploy.KindRollback)
}

// killControl is the test's side of the worker processes: the plugin
// reports each call to it, and gates call it; it records them and holds
// the one each fleet's kill point names.
type killControl struct {
	mu     sync.Mutex
	phase  string
	fleets map[string]*killFleet // by env
	events map[string][]killEvent
	// counted is the number of operations begun per env in this phase.
	counted map[string]int
	// at is each killed fleet's kill point: the n-th operation (from 1),
	// held before it acts or, after says, once it acted.
	at    map[string]int
	after map[string]bool
	held  map[string]string // env -> what was held
}

func newKillControl(fleets []*killFleet) *killControl {
	c := &killControl{fleets: map[string]*killFleet{}, events: map[string][]killEvent{}, counted: map[string]int{},
		at: map[string]int{}, after: map[string]bool{}, held: map[string]string{}}
	for _, f := range fleets {
		c.fleets[f.env("p")], c.fleets[f.env("k")] = f, f
	}
	return c
}

func (c *killControl) setPhase(p string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.phase = p
}

// pickKill picks f's kill point among the operations its uninterrupted
// run made.
func (c *killControl) pickKill(rng *rand.Rand, f *killFleet) {
	c.mu.Lock()
	defer c.mu.Unlock()
	env := f.env("k")
	n := c.counted[f.env("p")]
	if n == 0 {
		return // nothing ran: a fleet refused in config
	}
	c.at[env] = 1 + rng.IntN(n)
	c.after[env] = rng.IntN(2) == 0
}

// begin records an operation beginning and says whether to hold it: before
// it acts ("before"), once it acted ("after"), or not ("").
func (c *killControl) begin(ev killEvent) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ev.Run = c.phase
	c.events[ev.Env] = append(c.events[ev.Env], ev)
	c.counted[ev.Env]++
	if c.phase != "kill" || c.at[ev.Env] == 0 || c.counted[ev.Env] != c.at[ev.Env] {
		return ""
	}
	hold := "before"
	if c.after[ev.Env] && ev.Op != "gate" {
		hold = "after"
	}
	c.held[ev.Env] = hold + " " + ev.Op
	return hold
}

func (c *killControl) end(ev killEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ev.Run = c.phase
	c.events[ev.Env] = append(c.events[ev.Env], ev)
}

func (c *killControl) killKind(f *killFleet) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h, ok := c.held[f.env("k")]; ok {
		return h
	}
	return "none"
}

func (c *killControl) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hold := func(h string) bool {
		if h == "before" {
			<-r.Context().Done() // until the worker dies
			return true
		}
		return false
	}
	switch {
	case r.URL.Path == "/op":
		var ev killEvent
		if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if ev.Phase == "end" {
			c.end(ev)
			return
		}
		h := c.begin(ev)
		if hold(h) {
			return
		}
		_, _ = io.WriteString(w, h)
	case strings.HasPrefix(r.URL.Path, "/gate/"):
		env := strings.TrimPrefix(r.URL.Path, "/gate/")
		target := r.URL.Query().Get("target")
		if hold(c.begin(killEvent{Env: env, Op: "gate", Targets: []string{filepath.Base(target)}, Phase: "begin"})) {
			return
		}
		if strings.HasSuffix(target, "-gf") {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	case strings.HasPrefix(r.URL.Path, "/prom/"):
		env := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/prom/"), "/api/v1/query")
		if hold(c.begin(killEvent{Env: env, Op: "gate", Phase: "begin"})) {
			return
		}
		result := `[{"metric":{},"value":[1700000000,"0"]}]`
		switch c.fleets[env].Gate {
		case "prom-fail":
			result = `[{"metric":{},"value":[1700000000,"1"]}]`
		case "prom-empty":
			result = `[]`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"success","data":{"resultType":"vector","result":`+result+`}}`)
	default:
		http.NotFound(w, r)
	}
}

// waitAllHeld returns once every killed fleet is held at its kill point,
// or has ended without reaching it (said in the log: its run differs from
// the uninterrupted one, which the comparison then shows).
func (c *killControl) waitAllHeld(t *testing.T, child *killChild, dir, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	store := postgres.NewStore(db)
	ended := map[string]bool{}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		var waiting []string
		c.mu.Lock()
		for env, f := range c.fleets {
			if env == f.env("k") && c.at[env] > 0 && c.held[env] == "" && !ended[env] {
				waiting = append(waiting, env)
			}
		}
		c.mu.Unlock()
		for _, env := range waiting {
			if d, err := store.Get(ctx, "d-"+env); err == nil && d.State.Terminal() {
				ended[env] = true
				t.Logf("%s ended %s before its kill point", env, d.State)
			}
		}
		if len(waiting) == 0 {
			return
		}
		select {
		case <-tick.C:
		case err := <-child.exited:
			t.Fatalf("the worker ended before its kill: %v\n%s", err, child.out.String())
		case <-ctx.Done():
			slices.Sort(waiting)
			t.Fatalf("fleets never reached their kill point: %v\n%s", waiting, child.out.String())
		}
	}
}

// checkEvents checks the operations one run of f made, as the control
// server saw them, against the properties of the rollout.
func (c *killControl) checkEvents(f *killFleet, run string, d *deploy.Deployment) []string {
	c.mu.Lock()
	events := slices.Clone(c.events[f.env(run)])
	c.mu.Unlock()
	var errs []string
	excluded := map[string]bool{}
	for _, tg := range f.Targets {
		if tg.Labels["maintenance"] == "true" {
			excluded[tg.Name] = true
		}
	}
	st := d.RolloutStatus()
	if st == nil {
		return []string{"no rollout status"}
	}
	batchTargets := map[[2]int]int{}
	for wi, w := range st.Waves {
		for _, b := range w.Batches {
			batchTargets[[2]int{wi + 1, b.Index}] = len(b.Targets)
			if size := f.Batch[w.Name]; size > 0 && len(b.Targets) > size {
				errs = append(errs, fmt.Sprintf("batch %d of wave %s has %d targets, its wave's batch is %d", b.Index, w.Name, len(b.Targets), size))
			}
		}
	}
	type ref [2]int
	var order []ref
	seen := map[ref]bool{}
	open := 0
	lastRun := ""
	emptyGateAfter := 0 // the pass whose gate got no data under no_data: fail
	lastPass := 0
	for _, ev := range events {
		if ev.Run != lastRun {
			open, lastRun = 0, ev.Run // the operations a dead worker held never end
		}
		for _, tg := range ev.Targets {
			if excluded[tg] {
				errs = append(errs, fmt.Sprintf("%s of %s touches the excluded target %s", ev.Op, ev.Key, tg))
			}
		}
		if ev.Op == "gate" {
			if ev.Phase == "begin" && f.Gate == "prom-empty" && f.NoData == "fail" && emptyGateAfter == 0 {
				emptyGateAfter = lastPass
			}
			continue
		}
		if ev.Phase == "end" {
			open--
			continue
		}
		open++
		if open > 1 {
			errs = append(errs, fmt.Sprintf("%s %s begins while another operation is in flight", ev.Op, ev.Key))
		}
		if ev.compensation() {
			continue
		}
		p, b := ev.passBatch()
		if p == 0 {
			continue
		}
		if emptyGateAfter > 0 && p > emptyGateAfter {
			errs = append(errs, fmt.Sprintf("%s %s runs after the gate of pass %d got no data", ev.Op, ev.Key, emptyGateAfter))
		}
		lastPass = p
		r := ref{p, b}
		if n := len(order); n == 0 || order[n-1] != r {
			if seen[r] {
				errs = append(errs, fmt.Sprintf("batch %v runs again after batch %v began", r, order[n-1]))
			}
			seen[r] = true
			order = append(order, r)
		}
		if n, ok := batchTargets[r]; ok && len(ev.Targets) > n {
			errs = append(errs, fmt.Sprintf("%s %s on %d targets, its batch has %d", ev.Op, ev.Key, len(ev.Targets), n))
		}
	}
	for i := 1; i < len(order); i++ {
		if a, b := order[i-1], order[i]; b[0] < a[0] || (b[0] == a[0] && b[1] < a[1]) {
			errs = append(errs, fmt.Sprintf("batch %v runs after batch %v", b, a))
		}
	}
	return errs
}

// killOutcomes is what must not differ between an uninterrupted run and a
// killed one: the deploy's and rollback's ends, the waves, every target's
// outcome, wave, batch and state, and what is on it.
func killOutcomes(d *deploy.Deployment, dir, env string) []string {
	out := []string{fmt.Sprintf("deploy %s, rollback %q", d.State, d.Rollback)}
	st := d.RolloutStatus()
	if st == nil {
		return append(out, "no rollout")
	}
	out = append(out, "rollout "+string(st.State))
	for _, w := range st.Waves {
		gate := "-"
		if w.Gate != nil {
			gate = string(w.Gate.State)
		}
		var batches []string
		for _, b := range w.Batches {
			var names []string
			for _, tg := range b.Targets {
				names = append(names, filepath.Base(tg))
			}
			batches = append(batches, fmt.Sprintf("%d:%s%v", b.Index, b.State, names))
		}
		out = append(out, fmt.Sprintf("wave %s %s gate %s batches %v", w.Name, w.State, gate, batches))
	}
	for _, tg := range st.Targets {
		name := filepath.Base(tg.Name)
		target := filepath.Join(dir, "targets", env, name)
		link, _ := os.Readlink(filepath.Join(target, "current"))
		journal, _ := os.ReadFile(filepath.Join(target, ".manent", "journal"))
		var ops []string
		for _, line := range strings.Split(strings.TrimSpace(string(journal)), "\n") {
			if f := strings.Fields(line); len(f) >= 5 {
				// time op deploy key version: the key without the deploy.
				ops = append(ops, f[1]+" "+strings.ReplaceAll(strings.TrimPrefix(f[3], f[2]), env, "ENV")+" "+f[4])
			}
		}
		out = append(out, fmt.Sprintf("%s %s %s/%d %s, current %q, journal %v", name, tg.Outcome, tg.Wave, tg.Batch, tg.State,
			filepath.Base(link), ops))
	}
	return out
}

// killChild is a worker process of the test.
type killChild struct {
	cmd    *exec.Cmd
	out    *lockedBuffer
	exited chan error
	done   bool
}

func startKillChild(t *testing.T, phase, dir, url, control string) *killChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRolloutOutcomesSurviveSIGKILL$", "-test.v")
	cmd.Env = append(os.Environ(), killPhaseEnv+"="+phase, killDirEnv+"="+dir, killURLEnv+"="+url, killControlEnv+"="+control)
	c := &killChild{cmd: cmd, out: &lockedBuffer{}, exited: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = c.out, c.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if !c.done {
			_ = cmd.Process.Kill()
			if err := <-c.exited; err == nil {
				t.Log("the worker process ended by itself")
			}
		}
	})
	return c
}

func (c *killChild) waitSuccess(t *testing.T) {
	t.Helper()
	err := <-c.exited
	c.done = true
	if err != nil {
		t.Fatalf("worker process: %v\n%s", err, c.out.String())
	}
}

func (c *killChild) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-c.exited
	c.done = true
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the killed worker: %v", err)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	if len(s) > 20000 {
		s = "…" + s[len(s)-20000:]
	}
	return s
}

// runKillPhase is the worker process: it starts an engine on the test's
// database and directory (the same executor ID every time, so that the
// next process recovers what a killed one left), submits the runs of its
// phase and waits for the deploys to end; the kill phase waits for its
// SIGKILL.
func runKillPhase(t *testing.T, phase string) {
	dir, url, control := os.Getenv(killDirEnv), os.Getenv(killURLEnv), os.Getenv(killControlEnv)
	raw, err := os.ReadFile(filepath.Join(dir, "fleets.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fleets []*killFleet
	if err := json.Unmarshal(raw, &fleets); err != nil {
		t.Fatal(err)
	}
	plugin := &killPlugin{local: local.New(dir), control: control, client: &http.Client{}}
	e := newEnvWith(t, envOptions{url: url, dir: dir, executorID: "kill", plugins: []deploy.Plugin{plugin},
		workerConcurrency: 2 * len(fleets), steps: []string{
			"{name: artifacts, mode: mandatory}",
			"{name: deploy, mode: mandatory, max_retries: 0}",
			"{name: activation, mode: optional, max_retries: 0}",
		}})
	run := map[string]string{"plain": "p", "kill": "k", "recover": "k"}[phase]
	if phase != "recover" {
		for _, f := range fleets {
			if _, err := e.eng.Submit(e.ctx, []byte(webDescriptor(f.id(run), f.env(run), "1.0.0", "")), deploy.SubmitOptions{}); err != nil {
				t.Fatalf("submit %s: %v", f.id(run), err)
			}
		}
	}
	if phase == "kill" {
		select {} // until the test kills the process
	}
	for _, f := range fleets {
		waitEnded(t, e, f.id(run), 10*time.Minute)
	}
}

// waitEnded blocks until deploy id ends, woken by its events.
func waitEnded(t *testing.T, e *env, id string, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, timeout)
	defer cancel()
	ch := e.events.Subscribe(ctx, id)
	for {
		d, err := e.store.Get(ctx, id)
		if err == nil && d.State.Terminal() {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("deploy %s did not end (%+v, %v)", id, d, err)
		}
	}
}

// killPlugin is the local plugin reporting each call to the test's
// control server, which may hold it; targets labelled fail: deploy or
// fail: activate fail that operation (after it acted on the batch) with a
// permanent error.
type killPlugin struct {
	local   deploy.Plugin
	control string
	client  *http.Client
}

func (p *killPlugin) Name() string { return "kill" }

func (p *killPlugin) ValidateTargets(ts []deploy.Target, params map[string]string) []deploy.FieldError {
	return p.local.ValidateTargets(ts, params)
}

func (p *killPlugin) Deploy(ctx context.Context, req deploy.PluginRequest) (deploy.Result, error) {
	var res deploy.Result
	err := p.around(ctx, req, "deploy", func() (err error) {
		res, err = p.local.Deploy(ctx, req)
		return err
	})
	return res, err
}

func (p *killPlugin) Activate(ctx context.Context, req deploy.PluginRequest) (deploy.Result, error) {
	var res deploy.Result
	err := p.around(ctx, req, "activate", func() (err error) {
		res, err = p.local.Activate(ctx, req)
		return err
	})
	return res, err
}

func (p *killPlugin) Checkpoint(ctx context.Context, req deploy.PluginRequest) (deploy.Checkpoint, error) {
	var cp deploy.Checkpoint
	err := p.around(ctx, req, "checkpoint", func() (err error) {
		cp, err = p.local.Checkpoint(ctx, req)
		return err
	})
	return cp, err
}

func (p *killPlugin) Rollback(ctx context.Context, req deploy.PluginRequest, cp deploy.Checkpoint) (deploy.Result, error) {
	var res deploy.Result
	err := p.around(ctx, req, "rollback", func() (err error) {
		res, err = p.local.Rollback(ctx, req, cp)
		return err
	})
	return res, err
}

func (p *killPlugin) around(ctx context.Context, req deploy.PluginRequest, op string, do func() error) error {
	ev := killEvent{Env: req.Environment, Op: op, Key: req.IdempotencyKey, Phase: "begin"}
	for _, tg := range req.Targets {
		ev.Targets = append(ev.Targets, filepath.Base(tg.Path))
	}
	hold, err := p.report(ctx, ev)
	if err != nil {
		return err
	}
	err = do()
	if hold == "after" {
		select {} // the operation acted; the worker dies before it returns
	}
	if err == nil {
		for _, tg := range req.Targets {
			if f := tg.Labels["fail"]; f == op {
				err = deploy.Permanentf("%s fails on %s, as its labels say", op, filepath.Base(tg.Path))
			}
		}
	}
	ev.Phase = "end"
	if _, rerr := p.report(ctx, ev); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// report tells the control server about ev; the answer says whether to
// hold the operation once it acted. An operation held before it acts never
// gets its answer: the worker dies waiting.
func (p *killPlugin) report(ctx context.Context, ev killEvent) (string, error) {
	body, err := json.Marshal(ev)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.control+"/op", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("control server: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("control server: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("control server: %d %s", resp.StatusCode, answer)
	}
	return string(answer), nil
}
