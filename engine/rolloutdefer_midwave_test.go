package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/governance"
)

// windowsThatBegin is the governance of its rules, whose freeze windows
// narrowed to targets are in force only once begin is called: a window
// that begins at the moment a test chooses (while a batch runs), which a
// time of day in the configuration would race on a loaded machine.
type windowsThatBegin struct {
	deploy.Governor
	targets deploy.TargetFreezes
	begun   atomic.Bool
}

func (g *windowsThatBegin) begin() { g.begun.Store(true) }

func (g *windowsThatBegin) FrozenTargets(ctx context.Context, in deploy.GovernanceInput, targets []deploy.Target) (*deploy.Freeze, error) {
	if !g.begun.Load() {
		return nil, nil
	}
	return g.targets.FrozenTargets(ctx, in, targets)
}

// euMaintenance is a window over the targets of region eu of the
// environments named environment, in force for an hour from now once begun.
func euMaintenance(t *testing.T, environment string) *windowsThatBegin {
	t.Helper()
	now := time.Now().UTC()
	rules, err := governance.New(config.Governance{Freezes: []config.FreezeRule{{
		Name: "eu-maintenance", Match: config.FreezeMatch{Environment: environment},
		Targets:  &config.FreezeTargets{Labels: map[string]string{"region": "eu"}},
		Absolute: []config.AbsoluteWindow{{From: now.Add(-time.Minute).Format(time.RFC3339), To: now.Add(time.Hour).Format(time.RFC3339)}},
	}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &windowsThatBegin{Governor: rules, targets: rules}
}

// TestFreezeStartingMidWaveDefersTheNextBatch: a freeze window over
// region eu begins while the first batch of a wave runs. The next batch
// of that wave puts a release on an eu target inside the window: it must
// wait as a wave would (the calendar is read again before every batch).
// Meanwhile the target deployed before the window keeps its outcome, and
// so does the one the window does not select: only the targets left that
// it selects are deferred.
func TestFreezeStartingMidWaveDefersTheNextBatch(t *testing.T) {
	gov := euMaintenance(t, "midwave")
	e := newEnvWith(t, envOptions{governor: gov})
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/app/midwave.yml"), `plugin: test
targets: [{path: /t/a, labels: {region: eu}}, {path: /t/b, labels: {region: eu}}, {path: /t/c, labels: {region: us}}]
rollout:
  waves: [{name: eu, batch: 1}]
`)
	started, release := blockOn(e, "/t/a")
	e.submit("mid", "app", "midwave")
	<-started
	gov.begin()
	close(release)
	d := e.wait("mid", func(d *deploy.Deployment) bool {
		st := d.RolloutStatus()
		return d.State.Terminal() || (st != nil && st.State == deploy.RolloutDeferred)
	})
	st := d.RolloutStatus()
	if b := st.Waves[0].Batches[1]; b.StartedAt != nil || st.State != deploy.RolloutDeferred {
		t.Fatalf("batch 2 (eu target /t/b) started %v, inside the freeze window over eu; rollout %s, deploy %s",
			b.StartedAt, st.State, d.State)
	}
	var got []string
	for _, tg := range st.Targets {
		got = append(got, fmt.Sprintf("%s %s %s", tg.Name, tg.Outcome, tg.State))
	}
	want := []string{"/t/a targeted SUCCESS", "/t/b deferred PENDING", "/t/c targeted PENDING"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("targets %q, want %q", got, want)
	}
}
