package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// inventoryView is an entry of `manent inventory -o json`.
type inventoryView struct {
	Application  string  `json:"application"`
	Environment  string  `json:"environment"`
	DeploymentID *string `json:"deployment_id"`
	LastFailure  *struct {
		DeploymentID string  `json:"deployment_id"`
		Step         *string `json:"step"`
		Rollback     *string `json:"rollback"`
	} `json:"last_failure"`
}

func (r *rig) inventory(app, env string) inventoryView {
	r.t.Helper()
	out, errOut, code := r.manent(tokenAdmin, "inventory", "-o", "json")
	if code != 0 {
		r.t.Fatalf("manent inventory: exit %d\n%s", code, errOut)
	}
	var list []inventoryView
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		r.t.Fatalf("inventory JSON: %v\n%s", err, out)
	}
	for _, e := range list {
		if e.Application == app && e.Environment == env {
			return e
		}
	}
	r.t.Fatalf("no inventory entry for %s/%s: %s", app, env, out)
	return inventoryView{}
}

// reruns are the lines of a deploy log that say an operation ran again
// because the process running it stopped: where a kill landed.
func reruns(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "runs again: the process that ran it stopped") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

// waitJournals reads the journals of the targets until each has line. A
// journal has no event to wait on, and the point is to act within the
// operation that wrote it: it is read every millisecond.
func waitJournals(t *testing.T, targets []string, line string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		all := true
		for _, target := range targets {
			if !slices.Contains(readJournal(target), line) {
				all = false
				break
			}
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the journals of %v never had %q", targets, line)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestKillDuringRollbackResumes: a pipeline that activates before its
// post-test, with an automatic rollback; a good version in service on
// three targets, then a version whose post-test fails for good (404). The
// server is killed in the middle of that deploy and started again: the
// deploy ends ERROR with its rollback completed, every target was changed
// exactly once by each operation, the good version is back in service, and
// the inventory says so.
//
// The kill follows the targets' journals, not the deploy log: the log
// reaches a follower tens of milliseconds after its line, when the few
// milliseconds of work left in the deploy are done. Where the kill landed
// is logged (the lines of the log that say an operation runs again).
func TestKillDuringRollbackResumes(t *testing.T) {
	for _, c := range []struct {
		name string
		// killAfter is the journal line after which the server is killed,
		// once every target has it.
		killAfter string
	}{
		// Right after rollback:activation did its work: it is recorded or
		// run again (a no-op), then rollback:deploy runs in the next process.
		{"after rollback:activation", "rollback 2.0.0"},
		// Right after activation did its work, before it is recorded: the
		// next process runs it again, which finds the release in service,
		// and the rollback goes back to the checkpoint taken before the
		// first run (1.0.0), not to what is in service now.
		{"after activation", "activate 2.0.0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy", "activation", "post-test"}, maxRecovery: 3})
			r.artifact("1.0.0")
			r.artifact("2.0.0")
			var broken atomic.Bool
			health := endpoint(t, func(w http.ResponseWriter, _ *http.Request) {
				if broken.Load() {
					w.WriteHeader(http.StatusNotFound)
					return
				}
				w.WriteHeader(http.StatusOK)
			})
			paths := []string{"targets/a", "targets/b", "targets/c"}
			var targets []string
			for _, p := range paths {
				targets = append(targets, r.target(p))
			}
			r.env("staging", rollbackEnv(health+"/health", paths...))
			r.srv.start()

			// Given 1.0.0 in service.
			good := r.deployFollowed(r.descriptor("hello-good", "staging", "1.0.0", ""))

			// When 2.0.0 fails its post-test and the server is killed mid-way.
			broken.Store(true)
			bad := r.submit(r.descriptor("hello-broken", "staging", "2.0.0", ""))
			waitJournals(t, targets, c.killAfter)
			r.srv.kill()
			r.srv.start()

			// Then the deploy ends ERROR, rolled back.
			st := r.followToEnd(bad)
			t.Logf("where the kill landed: %q", reruns(r.logText(bad)))
			if st.State != "ERROR" || !strings.Contains(st.errorText(), "post-test") {
				t.Fatalf("state %s (%s), want ERROR in post-test", st.State, st.errorText())
			}
			var comps []string
			if st.Rollback != nil {
				for _, s := range st.Rollback.Steps {
					comps = append(comps, s.Name+" "+s.State)
				}
			}
			if st.Rollback == nil || st.Rollback.State != "completed" ||
				!slices.Equal(comps, []string{"rollback:activation SUCCESS", "rollback:deploy SUCCESS"}) {
				t.Fatalf("rollback = %+v, want completed: rollback:activation then rollback:deploy, both SUCCESS", st.Rollback)
			}
			// Each operation changed each target once.
			want := []string{"deploy 1.0.0", "activate 1.0.0", "deploy 2.0.0", "activate 2.0.0", "rollback 2.0.0", "remove 2.0.0"}
			for i, target := range targets {
				if got := journalLines(t, target); !slices.Equal(got, want) {
					t.Errorf("%s: journal = %q, want %q", paths[i], got, want)
				}
				if cur := currentLink(t, target); cur != "releases/1.0.0" {
					t.Errorf("%s: current -> %q, want releases/1.0.0", paths[i], cur)
				}
				if _, err := os.Stat(filepath.Join(target, "releases/2.0.0")); !os.IsNotExist(err) {
					t.Errorf("%s: releases/2.0.0 is still there (%v)", paths[i], err)
				}
			}
			// The inventory has the good deploy in service and the broken
			// one as the last failure.
			inv := r.inventory("hello", "staging")
			if inv.DeploymentID == nil || *inv.DeploymentID != good.ID {
				t.Errorf("in service: %v, want %s", inv.DeploymentID, good.ID)
			}
			if f := inv.LastFailure; f == nil || f.DeploymentID != bad || f.Rollback == nil || *f.Rollback != "completed" ||
				f.Step == nil || *f.Step != "post-test" {
				t.Errorf("last failure = %+v, want %s in post-test, rollback completed", f, bad)
			}
			// The lines of the workflow's own code are not written again
			// when the next process replays the steps before them.
			text := r.logText(bad)
			for _, line := range []string{"failed: rolling back", "rolled back: the targets are back", "deploy finished: ERROR"} {
				if n := strings.Count(text, line); n > 1 {
					t.Errorf("%q is %d times in the log", line, n)
				}
			}
		})
	}
}
