package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestRolloutOutcomesAfterSIGKILL is the end-to-end part of the rollout's
// property test: over seeded random small fleets (waves, batch sizes, a
// bake, the wave whose gate fails or none), the same deploy runs twice,
// once uninterrupted and once with manent-server killed with SIGKILL when a
// batch picked at random has started, then restarted. The per-target
// outcome table (outcome, wave, batch, state), the deploy's and the
// rollback's ends, and every target's current release and journal are the
// same. Few cases: each costs two deploys and a restart.
func TestRolloutOutcomesAfterSIGKILL(t *testing.T) {
	const cases, seed = 4, 11
	rng := rand.New(rand.NewPCG(seed, 0))
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy", "activation"}, maxRecovery: 3})
	r.srv.start()
	r.artifact("1.0.0")
	// The gate fails for the targets whose path names the failing wave
	// (".../w2-t3" is in wave 2) when the query says which one fails.
	gate := endpoint(t, func(w http.ResponseWriter, req *http.Request) {
		if f := req.URL.Query().Get("fail"); f != "" && strings.Contains(req.URL.Query().Get("target"), "/w"+f+"-") {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	for c := range cases {
		waves := 2 + rng.IntN(2)
		fail := rng.IntN(waves + 1) // 0: no wave fails
		var targets []string
		for i := range 3 + rng.IntN(4) {
			// Every wave gets a target; the others go anywhere.
			w := i + 1
			if i >= waves {
				w = 1 + rng.IntN(waves)
			}
			targets = append(targets, fmt.Sprintf("w%d-t%d", w, i+1))
		}
		batch := 1 + rng.IntN(2)
		// The batches that run: those of the waves up to the failing one.
		last := waves
		if fail > 0 {
			last = fail
		}
		batches := 0
		for w := 1; w <= last; w++ {
			n := 0
			for _, tg := range targets {
				if strings.HasPrefix(tg, fmt.Sprintf("w%d-", w)) {
					n++
				}
			}
			batches += (n + batch - 1) / batch
		}
		killAt := rng.IntN(batches) // the batch, counted over the whole rollout, whose start the kill follows
		name := fmt.Sprintf("case %d: %d waves, targets %v, batch %d, failing wave %d, kill after batch %d starts", c+1, waves, targets, batch, fail, killAt+1)
		t.Run(fmt.Sprintf("case-%d", c+1), func(t *testing.T) {
			t.Log(name)
			run := func(env string, kill bool) (fleetStatus, map[string]string) {
				r.env(env, killEnv(env, targets, waves, batch, fmt.Sprintf("%s/gate?fail=%d&target={{ .Target.Path }}", gate, fail)))
				id := r.submit(r.descriptor(fmt.Sprintf("kill-%d-%s", c+1, env), env, "1.0.0", ""))
				if kill {
					at := r.waitRollout(id, fmt.Sprintf("at batch %d", killAt+1), func(st fleetStatus) bool {
						return terminal(st.State) || startedBatches(st) > killAt
					})
					r.srv.kill()
					// Said, not asserted: a loaded machine may see the batch
					// start only once the deploy ended.
					t.Logf("killed with the deploy %s, %d batch(es) started", at.State, startedBatches(at))
					r.srv.start()
				}
				st := r.followToEnd(id)
				return r.rolloutStatus(st.ID), targetsOnDisk(t, r, env, targets)
			}
			plain, plainDisk := run(fmt.Sprintf("c%d-plain", c+1), false)
			killed, killedDisk := run(fmt.Sprintf("c%d-killed", c+1), true)
			if want := map[bool]string{true: "SUCCESS", false: "ERROR"}[fail == 0]; plain.State != want {
				t.Fatalf("uninterrupted run %s (%s), want %s", plain.State, plain.errorText(), want)
			}
			if killed.State != plain.State || rollbackState(killed) != rollbackState(plain) {
				t.Errorf("after a SIGKILL: deploy %s, rollback %s; uninterrupted: %s, %s", killed.State, rollbackState(killed), plain.State, rollbackState(plain))
			}
			if a, b := outcomeTable(plain), outcomeTable(killed); !slices.Equal(a, b) {
				t.Errorf("outcomes after a SIGKILL\n%s\nuninterrupted\n%s", strings.Join(b, "\n"), strings.Join(a, "\n"))
			}
			for _, tg := range targets {
				if plainDisk[tg] != killedDisk[tg] {
					t.Errorf("%s after a SIGKILL: %s; uninterrupted: %s", tg, killedDisk[tg], plainDisk[tg])
				}
			}
		})
	}
}

// killEnv is an environment of the given targets (named w<wave>-t<n>) under
// targets/<env>/, one wave per w with batches of batch and a bake of a
// second, gated by gateURL.
func killEnv(env string, targets []string, waves, batch int, gateURL string) string {
	var b strings.Builder
	b.WriteString("plugin: local\ntargets:\n")
	for _, tg := range targets {
		w := strings.SplitN(strings.TrimPrefix(tg, "w"), "-", 2)[0]
		fmt.Fprintf(&b, "  - {path: targets/%s/%s, labels: {w: %q}}\n", env, tg, w)
	}
	b.WriteString("rollout:\n  bake: 1s\n  waves:\n")
	for w := 1; w <= waves; w++ {
		fmt.Fprintf(&b, "    - {name: w%d, select: {labels: {w: \"%d\"}}, batch: %d}\n", w, w, batch)
	}
	fmt.Fprintf(&b, "  gates:\n    - {name: health, http: {url: %q}}\n", gateURL)
	b.WriteString("rollback:\n  enabled: true\n  on: [deploy, activation]\n")
	return b.String()
}

// startedBatches counts the batches of the rollout that have started.
func startedBatches(st fleetStatus) int {
	n := 0
	if st.Rollout == nil {
		return 0
	}
	for _, w := range st.Rollout.Waves {
		for _, b := range w.Batches {
			if b.StartedAt != nil {
				n++
			}
		}
	}
	return n
}

// outcomeTable is a line per target of the status: its name within its
// environment, outcome, wave, batch and state; and a line per wave.
func outcomeTable(st fleetStatus) []string {
	var out []string
	if st.Rollout == nil {
		return nil
	}
	out = append(out, "rollout "+st.Rollout.State)
	for _, w := range st.Rollout.Waves {
		gate := "-"
		if w.Gate != nil {
			gate = w.Gate.State
		}
		out = append(out, fmt.Sprintf("wave %s %s gate %s", w.Name, w.State, gate))
	}
	for _, tg := range st.Rollout.Targets {
		name := tg.Name[strings.LastIndex(tg.Name, "/")+1:]
		out = append(out, fmt.Sprintf("%s %s %s/%d %s", name, tg.Outcome, tg.Wave, tg.Batch, tg.State))
	}
	return out
}

func rollbackState(st fleetStatus) string {
	if st.Rollback == nil {
		return "none"
	}
	return st.Rollback.State
}

// targetsOnDisk is each target's current link and journal operations.
func targetsOnDisk(t *testing.T, r *rig, env string, targets []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tg := range targets {
		dir := r.target("targets/" + env + "/" + tg)
		out[tg] = fmt.Sprintf("current %q, journal %v", currentLink(t, dir), readJournal(dir))
	}
	return out
}
