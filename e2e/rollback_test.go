package e2e

import (
	"context"
	"encoding/json"
	"net/http"
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

// TestKillDuringRollbackResumes: a pipeline that activates before its
// post-test, with an automatic rollback; a good version in service on
// three targets, then a version whose post-test fails for good (404). The
// server is killed in the middle of the deploy — right after the log says
// rollback:activation succeeded, or right after checkpoint:activation —
// and started again. The deploy ends ERROR with its rollback completed, and
// every target was changed exactly once by each operation: the good
// version is back in service, and the inventory says so.
func TestKillDuringRollbackResumes(t *testing.T) {
	for _, c := range []struct {
		name string
		// killAfter is the log line after which the server is killed.
		killAfter string
	}{
		{"after rollback:activation", "rollback:activation"},
		{"after checkpoint:activation", "checkpoint:activation"},
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
			targets := []string{"targets/a", "targets/b", "targets/c"}
			r.env("staging", rollbackEnv(health+"/health", targets...))
			r.srv.start()

			// Given 1.0.0 in service.
			good := r.deployFollowed(r.descriptor("hello-good", "staging", "1.0.0", ""))

			// When 2.0.0 fails its post-test and the server is killed mid-way.
			broken.Store(true)
			bad := r.submit(r.descriptor("hello-broken", "staging", "2.0.0", ""))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			seen := r.waitLog(ctx, bad, func(l logEvent) bool {
				return l.Step == c.killAfter && l.Message == c.killAfter+" succeeded in "+strings.TrimPrefix(l.Message, c.killAfter+" succeeded in ")
			})
			cancel()
			if !seen {
				t.Fatalf("the log of %s never said %s succeeded\n%s", bad, c.killAfter, r.logText(bad))
			}
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
			for _, p := range targets {
				target := r.target(p)
				if got := journalLines(t, target); !slices.Equal(got, want) {
					t.Errorf("%s: journal = %q, want %q", p, got, want)
				}
				if cur := currentLink(t, target); cur != "releases/1.0.0" {
					t.Errorf("%s: current -> %q, want releases/1.0.0", p, cur)
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
		})
	}
}
