package engine_test

import (
	"fmt"
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
			want = deploy.WaveSkipped
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
