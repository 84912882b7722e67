package engine_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// TestFreezeStartingMidWaveDefersTheNextBatch: a freeze window over
// region eu begins while the first batch of an eu wave runs. The next
// batch of that wave puts a release on eu targets inside the window: it
// must wait as a wave would (the calendar is read only before a wave's
// first batch).
func TestFreezeStartingMidWaveDefersTheNextBatch(t *testing.T) {
	from := time.Now().UTC().Add(3 * time.Second).Truncate(time.Second)
	e := newEnvWith(t, envOptions{rules: true, engineYAML: fmt.Sprintf(`governance:
  freezes:
    - name: eu-maintenance
      match: {environment: midwave}
      targets: {labels: {region: eu}}
      absolute:
        - {from: %q, to: %q}
`, from.Format(time.RFC3339), from.Add(time.Hour).Format(time.RFC3339))})
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/app/midwave.yml"), `plugin: test
targets: [{path: /t/a, labels: {region: eu}}, {path: /t/b, labels: {region: eu}}]
rollout:
  waves: [{name: eu, batch: 1}]
`)
	started, release := blockOn(e, "/t/a")
	e.submit("mid", "app", "midwave")
	<-started
	time.Sleep(time.Until(from) + 500*time.Millisecond)
	close(release)
	d := e.wait("mid", func(d *deploy.Deployment) bool {
		st := d.RolloutStatus()
		return d.State.Terminal() || (st != nil && st.State == deploy.RolloutDeferred)
	})
	st := d.RolloutStatus()
	if b := st.Waves[0].Batches[1]; b.StartedAt != nil {
		t.Fatalf("batch 2 (eu target /t/b) started %v, inside the freeze window over eu from %v; rollout %s, deploy %s",
			b.StartedAt.UTC(), from, st.State, d.State)
	}
}
