package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// fleetEnv is an engine whose environment web/<name> deploys to local
// targets with labels, under the rollout its configuration gives.
type fleetEnv struct {
	*env
	name string
	// targets are the target directories by name (the path).
	targets map[string]string
	order   []string
}

// fleetTarget is one target of a fleet: its short name and labels.
type fleetTarget struct {
	name   string
	labels string
}

func newFleetEnv(t *testing.T, name string, steps []string, targets []fleetTarget, rest string) *fleetEnv {
	t.Helper()
	f := &fleetEnv{name: name, targets: map[string]string{}}
	f.env = newEnvWith(t, envOptions{steps: steps})
	var b strings.Builder
	b.WriteString("plugin: local\ntargets:\n")
	for _, tg := range targets {
		dir := filepath.Join(f.dir, "targets", name, tg.name)
		f.targets[tg.name] = dir
		f.order = append(f.order, tg.name)
		fmt.Fprintf(&b, "  - {path: %q, labels: {%s}}\n", dir, tg.labels)
	}
	b.WriteString(rest)
	f.writeConfig(b.String())
	for _, v := range []string{"1.0.0", "2.0.0"} {
		writeRelease(t, f.dir, v)
	}
	return f
}

func (f *fleetEnv) writeConfig(body string) {
	writeFile(f.t, filepath.Join(f.dir, "envconfig/demo/web", f.name+".yml"), body)
}

func (f *fleetEnv) deploy(id, version string, want deploy.State) *deploy.Deployment {
	f.t.Helper()
	if _, err := f.eng.Submit(f.ctx, []byte(webDescriptor(id, f.name, version, "")), deploy.SubmitOptions{}); err != nil {
		f.t.Fatalf("submit %s: %v", id, err)
	}
	return f.waitState(id, want)
}

// current is the release target name has in service ("" for none).
func (f *fleetEnv) current(name string) string {
	link, err := os.Readlink(filepath.Join(f.targets[name], "current"))
	if err != nil {
		return ""
	}
	return filepath.Base(link)
}

// journal is the operations the local plugin journaled on a target, with
// their keys.
func (f *fleetEnv) journal(name string) []string {
	b, err := os.ReadFile(filepath.Join(f.targets[name], ".manent", "journal"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// fleetTargets are nine targets in three regions and one under maintenance.
var fleetTargets = []fleetTarget{
	{"eu-1", "region: eu"}, {"eu-2", "region: eu"}, {"eu-3", "region: eu"},
	{"us-1", "region: us"}, {"us-2", "region: us"}, {"us-3", "region: us"},
	{"ap-1", "region: ap"}, {"ap-2", "region: ap"}, {"ap-3", "region: ap"},
	{"ap-4", `region: ap, maintenance: "true"`},
}

func batchSpans(t *testing.T, st *deploy.RolloutStatus) [][2]time.Time {
	t.Helper()
	var spans [][2]time.Time
	for _, w := range st.Waves {
		for _, b := range w.Batches {
			if b.StartedAt == nil || b.FinishedAt == nil {
				t.Fatalf("wave %s batch %d: started %v finished %v", w.Name, b.Index, b.StartedAt, b.FinishedAt)
			}
			spans = append(spans, [2]time.Time{*b.StartedAt, *b.FinishedAt})
		}
	}
	return spans
}

// TestRolloutRunsBatchByBatch: the steps from deploy to activation run once
// per batch with the batch's targets, one batch at a time, waves in order;
// the steps before and after run once; the excluded target is never
// touched, and an empty wave is passed by.
func TestRolloutRunsBatchByBatch(t *testing.T) {
	f := newFleetEnv(t, "fleet", nil, fleetTargets, `rollout:
  exclude: {labels: {maintenance: "true"}}
  waves:
    - {name: canary, select: {labels: {region: eu}}, count: 1}
    - {name: eu, select: {labels: {region: eu}}, batch: 2}
    - {name: mars, select: {labels: {region: mars}}}
    - {name: rest, batch: "50%"}
`)
	d := f.deploy("fleet-1", "1.0.0", deploy.StateSuccess)
	st := d.RolloutStatus()
	if st == nil || st.State != deploy.RolloutCompleted {
		t.Fatalf("rollout status = %+v", st)
	}
	wantBatches := map[string][][]string{
		"canary": {{"eu-1"}},
		"eu":     {{"eu-2", "eu-3"}},
		"mars":   {},
		"rest":   {{"us-1", "us-2", "us-3"}, {"ap-1", "ap-2", "ap-3"}},
	}
	for _, w := range st.Waves {
		var got [][]string
		for _, b := range w.Batches {
			got = append(got, baseNames(b.Targets))
			if b.State != deploy.StepSuccess {
				t.Errorf("wave %s batch %d: %s", w.Name, b.Index, b.State)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(wantBatches[w.Name]) {
			t.Errorf("wave %s batches %v, want %v", w.Name, got, wantBatches[w.Name])
		}
		want := deploy.WavePassed
		if w.Name == "mars" {
			want = deploy.WaveEmpty
		}
		if w.State != want {
			t.Errorf("wave %s: %s, want %s", w.Name, w.State, want)
		}
	}
	// Never two batches at once, and in the order of the plan.
	spans := batchSpans(t, st)
	for i := 1; i < len(spans); i++ {
		if spans[i][0].Before(spans[i-1][1]) {
			t.Fatalf("batch %d started %v before batch %d ended %v", i, spans[i][0], i-1, spans[i-1][1])
		}
	}
	// The steps before deploy and after activation ran once; the span once
	// per batch, each with its pass and batch.
	count := map[string]int{}
	for _, s := range d.Steps {
		count[s.Name]++
		if (s.Name == "deploy" || s.Name == "post-test" || s.Name == "activation") && (s.Pass == 0 || s.Batch == 0) {
			t.Errorf("%s recorded without its pass and batch", s.Key().Name())
		}
	}
	for name, n := range map[string]int{"config": 1, "secrets": 1, "artifacts": 1, "qa": 1, "deploy": 4, "post-test": 4, "activation": 4, "cleanup": 1} {
		if count[name] != n {
			t.Errorf("%s recorded %d times, want %d (records %v)", name, count[name], n, names(d.Steps))
		}
	}
	for _, tg := range st.Targets {
		switch filepath.Base(tg.Name) {
		case "ap-4":
			if tg.Outcome != deploy.OutcomeExcluded || tg.State != deploy.StepSkipped || tg.Release != nil {
				t.Errorf("excluded target: %+v", tg)
			}
		default:
			if tg.Outcome != deploy.OutcomeTargeted || tg.State != deploy.StepSuccess || tg.Release == nil || *tg.Release != "1.0.0" {
				t.Errorf("target %s: %+v", tg.Name, tg)
			}
		}
	}
	if _, err := os.Stat(f.targets["ap-4"]); !os.IsNotExist(err) {
		t.Errorf("the excluded target was touched: %v", err)
	}
	// Each target journaled one deploy and one activation, under its batch's key.
	for _, name := range f.order[:9] {
		j := f.journal(name)
		if len(j) != 2 || f.current(name) != "1.0.0" {
			t.Fatalf("target %s: journal %v, current %q", name, j, f.current(name))
		}
		tg := st.Targets[slices.IndexFunc(st.Targets, func(x deploy.RolloutTargetStatus) bool { return x.Name == f.targets[name] })]
		pass := slices.IndexFunc(st.Waves, func(w deploy.RolloutWaveStatus) bool { return w.Name == tg.Wave }) + 1
		key := fmt.Sprintf("fleet-1:deploy:p%d:b%d:run:", pass, tg.Batch)
		if !strings.Contains(j[0], key) {
			t.Errorf("target %s journal %q, want the key %s...", name, j[0], key)
		}
	}
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}

// addFleet writes the configuration of one more environment web/<name> of
// f's engine, on targets of its own, and returns their directories by name.
func (f *fleetEnv) addFleet(name string, targets []string, rest string) map[string]string {
	f.t.Helper()
	dirs := map[string]string{}
	var b strings.Builder
	b.WriteString("plugin: local\ntargets:\n")
	for _, tg := range targets {
		dir := filepath.Join(f.dir, "targets", name, tg)
		dirs[tg] = dir
		fmt.Fprintf(&b, "  - {path: %q}\n", dir)
	}
	b.WriteString(rest)
	writeFile(f.t, filepath.Join(f.dir, "envconfig/demo/web", name+".yml"), b.String())
	return dirs
}

func (f *fleetEnv) submitTo(id, environment, version string) {
	f.t.Helper()
	if _, err := f.eng.Submit(f.ctx, []byte(webDescriptor(id, environment, version, "")), deploy.SubmitOptions{}); err != nil {
		f.t.Fatalf("submit %s: %v", id, err)
	}
}

// prometheus is a loopback stand-in of Prometheus's query API: under
// /ok a value within bounds, /nodata an empty vector, /broken an error.
func prometheus(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/ok/"):
			_, _ = fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"0.001"]}]}}`)
		case strings.HasPrefix(r.URL.Path, "/nodata/"):
			_, _ = fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[]}}`)
		default:
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRolloutGates: after each wave, its gates decide: a pass goes on, a
// fail aborts before the next wave touches anything, no_data counts as the
// policy says, and a gate that cannot be judged never lets a wave pass.
func TestRolloutGates(t *testing.T) {
	health := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("answer") == "503" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(health.Close)
	prom := prometheus(t)
	httpGate := func(answer string) string {
		return fmt.Sprintf("  gates: [{name: health, http: {url: %q}}]\n", health.URL+"/health?answer="+answer)
	}
	promGate := func(path, noData string) string {
		return fmt.Sprintf("  gates: [{name: errors, prometheus: {url: %q, query: up, max: 0.01}}]\n  no_data: %s\n", prom+path, noData)
	}
	tests := []struct {
		name      string
		gates     string
		want      deploy.State
		wantGate  deploy.GateResult
		wantError string
	}{
		{"http pass", httpGate("200"), deploy.StateSuccess, deploy.GatePass, ""},
		{"http fail", httpGate("503"), deploy.StateError, deploy.GateFail, "wave one failed its gates: health fail"},
		{"prometheus pass", promGate("/ok", "fail"), deploy.StateSuccess, deploy.GatePass, ""},
		{"no data fails", promGate("/nodata", "fail"), deploy.StateError, deploy.GateNoData, "wave one failed its gates: errors no_data"},
		{"no data passes", promGate("/nodata", "pass"), deploy.StateSuccess, deploy.GatePass, ""},
	}
	f := newFleetEnv(t, "gates", nil, nil, "")
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name := fmt.Sprintf("gates%d", i)
			dirs := f.addFleet(name, []string{"a", "b"}, "rollout:\n  waves: [{name: one, count: 1}, {name: two}]\n"+tt.gates)
			id := "gated-" + name
			f.submitTo(id, name, "1.0.0")
			d := f.waitState(id, tt.want)
			if !strings.Contains(d.Error, tt.wantError) {
				t.Errorf("error %q, want %q in it", d.Error, tt.wantError)
			}
			st := d.RolloutStatus()
			one, two := st.Waves[0], st.Waves[1]
			if one.Gate == nil || one.Gate.State != tt.wantGate || len(one.Gate.Checks) != 1 {
				t.Fatalf("wave one's gate = %+v, want %s", one.Gate, tt.wantGate)
			}
			if tt.want == deploy.StateSuccess {
				if st.State != deploy.RolloutCompleted || two.State != deploy.WavePassed {
					t.Fatalf("rollout %s, wave two %s", st.State, two.State)
				}
				return
			}
			// The next wave was never touched.
			if _, err := os.Stat(dirs["b"]); !os.IsNotExist(err) {
				t.Errorf("wave two's target was touched after a failed gate: %v", err)
			}
			if st.State != deploy.RolloutAborted || one.State != deploy.WaveFailed || two.State != deploy.WaveSkipped {
				t.Errorf("rollout %s, waves %s and %s; want aborted, failed, skipped", st.State, one.State, two.State)
			}
		})
	}
}

// TestRolloutRollsBackAcrossWaves: a gate failing after the second wave
// compensates every batch done, the last first, target by target, and the
// third wave is never touched.
func TestRolloutRollsBackAcrossWaves(t *testing.T) {
	health := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("v") == "2.0.0" && strings.HasSuffix(q.Get("t"), "/c") {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(health.Close)
	f := newFleetEnv(t, "rb", nil, []fleetTarget{{"a", "w: one"}, {"b", "w: two"}, {"c", "w: two"}, {"d", "w: three"}},
		fmt.Sprintf(`rollback: {enabled: true, on: [deploy, activation, post-test]}
rollout:
  waves:
    - {name: one, select: {labels: {w: one}}}
    - {name: two, select: {labels: {w: two}}, batch: 1}
    - {name: three}
  gates: [{name: health, http: {url: %q}}]
`, health.URL+"/health?v={{ .Version }}&t={{ .Target.Path }}"))
	f.deploy("first", "1.0.0", deploy.StateSuccess)
	d := f.deploy("second", "2.0.0", deploy.StateError)
	if d.Rollback != deploy.RollbackCompleted || !strings.Contains(d.Error, "wave two failed its gates") {
		t.Fatalf("rollback %q, error %q", d.Rollback, d.Error)
	}
	var got []string
	for _, s := range d.Compensations() {
		got = append(got, s.Key().Name()+"="+string(s.State))
	}
	want := []string{
		"rollback:activation[2/2]=SUCCESS", "rollback:deploy[2/2]=SUCCESS",
		"rollback:activation[2/1]=SUCCESS", "rollback:deploy[2/1]=SUCCESS",
		"rollback:activation[1/1]=SUCCESS", "rollback:deploy[1/1]=SUCCESS",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("compensations %v, want %v", got, want)
	}
	// The log names the batches it brings back, as their records do.
	line := "rolling back (" + strings.ReplaceAll(strings.Join(want, ", "), "=SUCCESS", "") + ")"
	if log := f.logText("second"); !strings.Contains(log, line) {
		t.Errorf("the log does not say %q:\n%s", line, log)
	}
	comp := d.Compensations()
	for i := 1; i < len(comp); i++ {
		if comp[i].StartedAt.Before(*comp[i-1].FinishedAt) {
			t.Fatalf("%s started before %s ended", comp[i].Key().Name(), comp[i-1].Key().Name())
		}
	}
	for _, name := range []string{"a", "b", "c", "d"} {
		if cur := f.current(name); cur != "1.0.0" {
			t.Errorf("target %s runs %q, want 1.0.0 back", name, cur)
		}
		if _, err := os.Stat(filepath.Join(f.targets[name], "releases", "2.0.0")); !os.IsNotExist(err) {
			t.Errorf("target %s keeps release 2.0.0: %v", name, err)
		}
	}
	for _, line := range f.journal("d") {
		if strings.Contains(line, "second") {
			t.Errorf("wave three's target was touched: %s", line)
		}
	}
	st := d.RolloutStatus()
	states := []deploy.WaveState{st.Waves[0].State, st.Waves[1].State, st.Waves[2].State}
	if fmt.Sprint(states) != fmt.Sprint([]deploy.WaveState{deploy.WaveRolledBack, deploy.WaveRolledBack, deploy.WaveSkipped}) {
		t.Errorf("wave states %v", states)
	}
	for _, tg := range st.Targets {
		want := deploy.TargetRolledBack
		if filepath.Base(tg.Name) == "d" {
			want = deploy.StepSkipped
		}
		if tg.State != want || (want == deploy.TargetRolledBack && (tg.Release == nil || *tg.Release != "1.0.0")) {
			t.Errorf("target %s: %s (release %v), want %s", tg.Name, tg.State, tg.Release, want)
		}
	}
	inv, err := f.store.Inventory(f.ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range inv {
		if e.Application == "web" && e.Environment == "rb" && e.DeploymentID != "first" {
			t.Errorf("in service: %s, want first back", e.DeploymentID)
		}
	}
}

// TestRolloutRolledBackTargetShowsRelease: a target of a rolled-back batch
// shows the release it was brought back to (docs/rollouts.md), the one in
// service before the deploy, also in a later batch (whose checkpoint finds
// the deploy itself in service); after a first deploy rolled back, none.
func TestRolloutRolledBackTargetShowsRelease(t *testing.T) {
	health := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("v") == "2.0.0" && strings.HasSuffix(q.Get("t"), "/z") {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(health.Close)
	rest := fmt.Sprintf(`rollback: {enabled: true, on: [deploy, activation, post-test]}
rollout:
  waves: [{name: one, count: 1}, {name: two, batch: 1}]
  gates: [{name: health, http: {url: %q}}]
`, health.URL+"/health?v={{ .Version }}&t={{ .Target.Path }}")
	tests := []struct {
		name   string
		before string // the version deployed first, "" for none
		want   *string
	}{
		{"over a release", "1.0.0", ptr("1.0.0")},
		{"a first deploy", "", nil},
	}
	f := newFleetEnv(t, "rrel", nil, nil, "")
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := fmt.Sprintf("rrel%d", i)
			f.addFleet(env, []string{"x", "y", "z"}, rest)
			if tt.before != "" {
				f.submitTo(env+"-first", env, tt.before)
				f.waitState(env+"-first", deploy.StateSuccess)
			}
			f.submitTo(env+"-second", env, "2.0.0")
			d := f.waitState(env+"-second", deploy.StateError)
			st := d.RolloutStatus()
			if len(st.Targets) != 3 {
				t.Fatalf("targets %+v", st.Targets)
			}
			for _, tg := range st.Targets {
				if tg.State != deploy.TargetRolledBack {
					t.Errorf("%s: %s, want ROLLED_BACK", tg.Name, tg.State)
				}
				if fmt.Sprint(deref(tg.Release)) != fmt.Sprint(deref(tt.want)) {
					t.Errorf("%s was brought back to %s, but its release is %s", filepath.Base(tg.Name), deref(tt.want), deref(tg.Release))
				}
			}
		})
	}
}

// TestRolloutRolledBackBeforeActivationShowsRelease: a batch that fails
// before its activation (in post-test, between deploy and activation) is
// compensated, and its targets are ROLLED_BACK to the release they ran,
// though no checkpoint of activation was ever taken: the one in service
// before the deploy, none after a first deploy.
func TestRolloutRolledBackBeforeActivationShowsRelease(t *testing.T) {
	health := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("v") == "2.0.0" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(health.Close)
	rest := fmt.Sprintf(`health: [{url: %q}]
rollback: {enabled: true, on: [deploy, post-test, activation]}
rollout:
  waves: [{name: one, count: 1}, {name: two}]
`, health.URL+"/h?v={{ .Version }}")
	tests := []struct {
		name   string
		before string // the version deployed first, "" for none
		want   *string
	}{
		{"over a release", "1.0.0", ptr("1.0.0")},
		{"a first deploy", "", nil},
	}
	f := newFleetEnv(t, "rbpre", nil, nil, "")
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := fmt.Sprintf("rbpre%d", i)
			f.addFleet(env, []string{"x", "y"}, rest)
			if tt.before != "" {
				f.submitTo(env+"-first", env, tt.before)
				f.waitState(env+"-first", deploy.StateSuccess)
			}
			f.submitTo(env+"-second", env, "2.0.0")
			d := f.waitState(env+"-second", deploy.StateError)
			if s := step(d, "post-test"); s.State != deploy.StepError || s.Pass != 1 {
				t.Fatalf("post-test = %s in pass %d, want the first batch's to fail", s.State, s.Pass)
			}
			st := d.RolloutStatus()
			x, y := st.Targets[0], st.Targets[1]
			if x.State != deploy.TargetRolledBack {
				t.Fatalf("x: %s (%s), want ROLLED_BACK", x.State, deref(x.Error))
			}
			if deref(x.Release) != deref(tt.want) {
				t.Errorf("x was brought back to %s, but its release is %s", deref(tt.want), deref(x.Release))
			}
			if y.State != deploy.StepSkipped || y.Release != nil {
				t.Errorf("y, never touched: %s, release %s", y.State, deref(y.Release))
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestRolloutMaxFailures: a wave fails when more targets failed than
// max_failures, not when as many did; a tolerated failure shows its
// targets ERROR and the rollout goes on.
func TestRolloutMaxFailures(t *testing.T) {
	tests := []struct {
		name        string
		maxFailures string
		broken      []string
		want        deploy.State
	}{
		{"reached", "1", []string{"x"}, deploy.StateSuccess},
		{"exceeded", "1", []string{"x", "y"}, deploy.StateError},
		{"none tolerated", "0", []string{"x"}, deploy.StateError},
		{"a percentage", `"50%"`, []string{"x"}, deploy.StateSuccess},
	}
	f := newFleetEnv(t, "mf", nil, nil, "")
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name := fmt.Sprintf("mf%d", i)
			dirs := f.addFleet(name, []string{"x", "y", "z"}, "rollout:\n  waves: [{name: all, batch: 1}]\n  max_failures: "+tt.maxFailures+"\n")
			// A target whose directory is a file cannot be deployed to.
			for _, b := range tt.broken {
				writeFile(t, dirs[b], "not a directory\n")
			}
			id := "mf-" + name
			f.submitTo(id, name, "1.0.0")
			d := f.waitState(id, tt.want)
			st := d.RolloutStatus()
			for _, tg := range st.Targets {
				short := filepath.Base(tg.Name)
				want := deploy.StepSuccess
				switch {
				case slices.Contains(tt.broken, short):
					want = deploy.StepError
				case tt.want != deploy.StateSuccess:
					// The batch after the failure that exceeded max_failures never ran.
					want = deploy.StepSkipped
				}
				if tg.State != want {
					t.Errorf("target %s: %s, want %s", short, tg.State, want)
				}
				if want == deploy.StepError && (tg.Error == nil || *tg.Error == "") {
					t.Errorf("target %s: no error shown", short)
				}
			}
		})
	}
}

// TestRolloutWholeWaveFailureStopsRollout: max_failures tolerates some failed
// targets in a wave, but a wave whose every target failed (a canary of one
// under max_failures: 1, or any wave under max_failures: "100%") has shown
// nothing but failure: the rollout must not go on to the next wave, and the
// deploy must not end SUCCESS (the AWS CodeDeploy complaint the issue names:
// "a deploy still succeeds when the last instance fails").
func TestRolloutWholeWaveFailureStopsRollout(t *testing.T) {
	tests := []struct {
		name, rollout string
	}{
		{"a canary of one under max_failures 1", "rollout:\n  waves: [{name: canary, count: 1}, {name: rest}]\n  max_failures: 1\n"},
		{"every target under max_failures 100%", "rollout:\n  waves: [{name: canary, count: 1}, {name: rest}]\n  max_failures: \"100%\"\n"},
	}
	f := newFleetEnv(t, "wf", nil, nil, "")
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("rwf%d", i)
			dirs := f.addFleet(name, []string{"x", "y"}, tt.rollout)
			// x, the canary, cannot be deployed to.
			writeFile(t, dirs["x"], "not a directory\n")
			id := "wf-" + name
			f.submitTo(id, name, "1.0.0")
			d := f.wait(id, func(d *deploy.Deployment) bool { return d.State.Terminal() })
			if d.State == deploy.StateSuccess {
				t.Errorf("deploy ended SUCCESS although its canary wave failed on every target")
			}
			if _, err := os.Stat(dirs["y"]); !os.IsNotExist(err) {
				t.Errorf("the next wave ran after a wave whose every target failed (y touched: %v)", err)
			}
		})
	}
}

// TestBakeSurvivesARestart: a worker that stops in a bake comes back to
// the same end of it (its recorded start stands), the next wave waits for
// it, and no batch runs twice.
func TestBakeSurvivesARestart(t *testing.T) {
	const bake = 4 * time.Second
	first := newEnvWith(t, envOptions{executorID: "bake"})
	writeRelease(t, first.dir, "1.0.0")
	dirs := []string{filepath.Join(first.dir, "targets/bake/a"), filepath.Join(first.dir, "targets/bake/b")}
	writeFile(t, filepath.Join(first.dir, "envconfig/demo/web/bake.yml"), fmt.Sprintf(`plugin: local
targets: [{path: %q}, {path: %q}]
rollout:
  waves: [{name: one, count: 1, bake: %s}, {name: two}]
`, dirs[0], dirs[1], bake))
	if _, err := first.eng.Submit(first.ctx, []byte(webDescriptor("baked", "bake", "1.0.0", "")), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	d := first.wait("baked", func(d *deploy.Deployment) bool {
		st := d.RolloutStatus()
		return st != nil && st.Waves[0].State == deploy.WaveBaking && st.Waves[0].Bake.Until != nil
	})
	until := *d.RolloutStatus().Waves[0].Bake.Until
	_ = first.eng.Shutdown(5 * time.Second)

	second := newEnvWith(t, envOptions{url: first.url, dir: first.dir, executorID: "bake", plugin: first.plugin})
	d = second.waitState("baked", deploy.StateSuccess)
	w := d.RolloutStatus().Waves[0]
	if w.Bake.Until == nil || !w.Bake.Until.Equal(until) {
		t.Fatalf("bake until %v after the restart, want %v", w.Bake.Until, until)
	}
	bakeRec := step(d, "bake")
	if bakeRec.FinishedAt == nil || bakeRec.FinishedAt.Before(until) {
		t.Fatalf("bake ended %v, before its end %v", bakeRec.FinishedAt, until)
	}
	two := d.RolloutStatus().Waves[1]
	if two.Batches[0].StartedAt.Before(until) {
		t.Fatalf("wave two started %v, before the bake ended %v", two.Batches[0].StartedAt, until)
	}
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ".manent", "journal"))
		if err != nil || strings.Count(string(b), "\n") != 2 {
			t.Fatalf("journal of %s: %q, %v; want one deploy and one activation", dir, b, err)
		}
	}
}

// TestRolloutRejectsAtRunTime: a configuration changed after the
// submission so that a target no longer matches the rule fails the deploy
// in its config step, before any target is touched.
func TestRolloutRejectsAtRunTime(t *testing.T) {
	e := newEnv(t)
	writeRelease(t, e.dir, "1.0.0")
	dirs := []string{filepath.Join(e.dir, "targets/rule/a"), filepath.Join(e.dir, "targets/rule/b")}
	conf := func(osB string) string {
		return fmt.Sprintf(`plugin: local
targets: [{path: %q, labels: {os: linux}}, {path: %q, labels: {os: %s}}]
rollout: {rule: {labels: {os: linux}}}
`, dirs[0], dirs[1], osB)
	}
	path := filepath.Join(e.dir, "envconfig/demo/web/rule.yml")
	writeFile(t, path, conf("linux"))
	// The deploy waits for another one, meanwhile the configuration changes.
	release := make(chan struct{})
	e.plugin.deploy = func(ctx context.Context, req deploy.PluginRequest) error {
		if req.DeploymentID == "blocker" {
			<-release
		}
		return nil
	}
	e.submit("blocker", "app", "staging")
	if _, err := e.eng.Submit(e.ctx, []byte(webDescriptor("ruled", "rule", "1.0.0", "after: [blocker]\n")), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, conf("windows"))
	close(release)
	d := e.waitState("ruled", deploy.StateError)
	if s := step(d, "config"); s.State != deploy.StepError || !strings.Contains(s.Error, "rejected: does not match rollout.rule") {
		t.Fatalf("config step = %s %q", s.State, s.Error)
	}
	for _, dir := range dirs {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("target %s touched: %v", dir, err)
		}
	}
	// The status shows the plan the run refused, with the labels of the
	// configuration valid then, not the submission's.
	st := d.RolloutStatus()
	if st == nil || st.State != deploy.RolloutAborted || len(st.Targets) != 2 {
		t.Fatalf("rollout status %+v", st)
	}
	a, b := st.Targets[0], st.Targets[1]
	if a.Outcome != deploy.OutcomeTargeted || a.State != deploy.StepSkipped || a.Error != nil {
		t.Errorf("target a: %+v, want targeted, SKIPPED", a)
	}
	if b.Outcome != deploy.OutcomeRejected || b.Labels["os"] != "windows" || b.Wave != "" ||
		deref(b.Error) != "rejected: does not match rollout.rule: os is windows, not linux" {
		t.Errorf("target b: %+v (error %s), want rejected with os windows and why", b, deref(b.Error))
	}
	if w := st.Waves[0]; w.State != deploy.WaveSkipped || fmt.Sprint(w.Targets) != fmt.Sprint([]string{dirs[0]}) {
		t.Errorf("wave %+v, want skipped with target a alone", w)
	}
}

// TestRolloutRemovedBeforeTheRunShowsNoRollout: a deploy submitted under a
// rollout whose environment drops it before the deploy runs runs without
// one; its status then shows no rollout (not the submission's, whose
// waves would read skipped and whose targets SKIPPED though deployed).
func TestRolloutRemovedBeforeTheRunShowsNoRollout(t *testing.T) {
	e := newEnv(t)
	writeRelease(t, e.dir, "1.0.0")
	dir := filepath.Join(e.dir, "targets", "drop", "a")
	path := filepath.Join(e.dir, "envconfig/demo/web/drop.yml")
	writeFile(t, path, fmt.Sprintf("plugin: local\ntargets: [{path: %q}]\nrollout:\n  waves: [{name: one}]\n", dir))
	release := make(chan struct{})
	e.plugin.deploy = func(ctx context.Context, req deploy.PluginRequest) error {
		if req.DeploymentID == "blocker" {
			<-release
		}
		return nil
	}
	e.submit("blocker", "app", "staging")
	sub, err := e.eng.Submit(e.ctx, []byte(webDescriptor("drop-1", "drop", "1.0.0", "after: [blocker]\n")), deploy.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Deployment.RolloutStatus() == nil {
		t.Fatal("the submission planned no rollout")
	}
	// The platform team drops the rollout while the deploy waits.
	writeFile(t, path, fmt.Sprintf("plugin: local\ntargets: [{path: %q}]\n", dir))
	close(release)
	d := e.waitState("drop-1", deploy.StateSuccess)
	if d.Effective.Rollout != nil {
		t.Fatalf("the run kept a rollout: %+v", d.Effective.Rollout)
	}
	if st := d.RolloutStatus(); st != nil {
		t.Fatalf("the deploy ran without rollout, yet its status shows one: state %s, waves %+v, targets %+v", st.State, st.Waves, st.Targets)
	}
	if st := deploy.NewStatus(d); st.Rollout != nil {
		t.Fatalf("the status JSON has a rollout: %+v", st.Rollout)
	}
}

// TestCancelDuringBake: a cancel wakes a rollout in its bake, which stops
// at once rather than at the bake's end.
func TestCancelDuringBake(t *testing.T) {
	f := newFleetEnv(t, "cbake", nil, []fleetTarget{{"a", "r: x"}, {"b", "r: y"}}, `rollout:
  waves: [{name: one, count: 1, bake: 10m}, {name: two}]
`)
	f.submitTo("cb", "cbake", "1.0.0")
	f.wait("cb", func(d *deploy.Deployment) bool {
		st := d.RolloutStatus()
		return st != nil && st.Waves[0].State == deploy.WaveBaking && st.Waves[0].Bake.Until != nil
	})
	if _, err := f.eng.Cancel(f.ctx, "cb"); err != nil {
		t.Fatal(err)
	}
	d := f.waitState("cb", deploy.StateCancelled)
	if want := "cancelled by token:ci after step activation[1/1], before bake[1]"; d.Error != want {
		t.Fatalf("error %q, want %q", d.Error, want)
	}
	if s := step(d, "bake"); s.State != deploy.StepCancelled {
		t.Fatalf("bake = %s, want CANCELLED", s.State)
	}
	if _, err := os.Stat(f.targets["b"]); !os.IsNotExist(err) {
		t.Fatalf("wave two ran after the cancel: %v", err)
	}
}
