package engine_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// deferFleet is a local fleet in web/<name>: a in region us, b in region
// eu, one wave each, under a freeze window over region eu until until,
// which freezes nothing else.
func deferFleet(t *testing.T, name string, until time.Time, rest string) *fleetEnv {
	t.Helper()
	now := time.Now().UTC()
	f := &fleetEnv{name: name, targets: map[string]string{}}
	f.env = newEnvWith(t, envOptions{rules: true, engineYAML: fmt.Sprintf(`governance:
  freezes:
    - name: eu-maintenance
      match: {environment: %s}
      targets: {labels: {region: eu}}
      absolute:
        - {from: %q, to: %q}
`, name, now.Add(-time.Hour).Format(time.RFC3339), until.Format(time.RFC3339))})
	var b strings.Builder
	b.WriteString("plugin: local\ntargets:\n")
	for _, tg := range []fleetTarget{{"a", "region: us"}, {"b", "region: eu"}} {
		dir := f.dir + "/targets/" + name + "/" + tg.name
		f.targets[tg.name] = dir
		fmt.Fprintf(&b, "  - {path: %q, labels: {%s}}\n", dir, tg.labels)
	}
	b.WriteString("rollout:\n  waves: [{name: us, select: {labels: {region: us}}}, {name: eu}]\n" + rest)
	f.writeConfig(b.String())
	writeRelease(t, f.dir, "1.0.0")
	return f
}

// TestRolloutDeferredWaveResumes: a window over the targets of the second
// wave does not refuse the deploy (it freezes no environment): the first
// wave runs, the second is deferred, its targets shown deferred until the
// window ends, and it starts by itself then.
func TestRolloutDeferredWaveResumes(t *testing.T) {
	until := time.Now().UTC().Add(4 * time.Second).Truncate(time.Second)
	f := deferFleet(t, "defer", until, "")
	f.submitTo("df", "defer", "1.0.0")
	d := f.wait("df", func(d *deploy.Deployment) bool {
		if d.State.Terminal() {
			t.Fatalf("deploy ended %s (%s) before its wave was deferred", d.State, d.Error)
		}
		st := d.RolloutStatus()
		return st != nil && st.State == deploy.RolloutDeferred
	})
	st := d.RolloutStatus()
	us, eu := st.Waves[0], st.Waves[1]
	if us.State != deploy.WavePassed || eu.State != deploy.WaveDeferred || eu.DeferredUntil == nil || !eu.DeferredUntil.Equal(until) {
		t.Fatalf("waves %s, %s until %v: want passed, deferred until %v", us.State, eu.State, eu.DeferredUntil, until)
	}
	if tb := st.Targets[1]; tb.Outcome != deploy.OutcomeDeferred || tb.Wave != "eu" || st.Targets[0].Outcome != deploy.OutcomeTargeted {
		t.Fatalf("targets %+v: want b deferred in eu, a targeted", st.Targets)
	}
	if _, err := os.Stat(f.targets["b"]); !os.IsNotExist(err) {
		t.Fatalf("the deferred wave's target was touched: %v", err)
	}
	d = f.waitState("df", deploy.StateSuccess)
	st = d.RolloutStatus()
	if started := st.Waves[1].Batches[0].StartedAt; started == nil || started.Before(until) {
		t.Fatalf("wave eu started %v, before the window's end %v", started, until)
	}
	if s := stepKey(d, deploy.StepKey{Step: deploy.StepDefer, Pass: 2, Kind: deploy.KindRun}); s.State != deploy.StepSuccess ||
		s.Output[deploy.OutputDeferWindow] != "eu-maintenance" || s.Output[deploy.OutputDeferTargets] != f.targets["b"] {
		t.Fatalf("defer[2] = %+v", s)
	}
	if st.Targets[1].Outcome != deploy.OutcomeTargeted || f.current("b") != "1.0.0" {
		t.Fatalf("target b %+v runs %q after the window", st.Targets[1], f.current("b"))
	}
}

// TestRolloutDeferTimesOut: a window that outlasts defer_timeout aborts the
// rollout, as a failed wave, without touching the deferred wave.
func TestRolloutDeferTimesOut(t *testing.T) {
	t.Parallel()
	f := deferFleet(t, "dtimeout", time.Now().UTC().Add(time.Hour), "  defer_timeout: 1m\n")
	f.submitTo("dt", "dtimeout", "1.0.0")
	d := f.waitState("dt", deploy.StateError)
	if want := "wave eu deferred by freeze window eu-maintenance for 1m0s (defer_timeout): the rollout aborts"; d.Error != want {
		t.Fatalf("error %q, want %q", d.Error, want)
	}
	s := stepKey(d, deploy.StepKey{Step: deploy.StepDefer, Pass: 2, Kind: deploy.KindRun})
	if s.State != deploy.StepError || s.FinishedAt.Sub(*s.StartedAt) < time.Minute {
		t.Fatalf("defer[2] %s from %v to %v: want an error after a minute", s.State, s.StartedAt, s.FinishedAt)
	}
	if _, err := os.Stat(f.targets["b"]); !os.IsNotExist(err) {
		t.Fatalf("the deferred wave's target was touched: %v", err)
	}
}
