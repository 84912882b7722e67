package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// rollbackEnv is an environment configuration of hello on the local
// plugin with a health check and an automatic rollback for every step that
// can fail on the targets.
func rollbackEnv(healthURL string, targets ...string) string {
	var b strings.Builder
	b.WriteString("plugin: local\ntargets:\n")
	for _, p := range targets {
		fmt.Fprintf(&b, "  - path: %s\n", p)
	}
	fmt.Fprintf(&b, "health:\n  - url: %s\nrollback:\n  enabled: true\n  on: [deploy, activation, post-test]\n", healthURL)
	return b.String()
}

// TestStepThatKeepsCrashingItsWorker: a post-test whose health check brings
// its worker down every time it is called. The test restarts the server
// each time, as a supervisor would. With engine.max_recovery_attempts 3
// the step runs in four processes (runs 1 to 4); the fifth start does not
// run it again: the deploy ends MAX_RECOVERY_ATTEMPTS_EXCEEDED, and its
// automatic rollback (post-test is in rollback.on) removes the release it
// added, leaving the previous one in service.
func TestStepThatKeepsCrashingItsWorker(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy", "post-test", "activation"}, maxRecovery: 3})
	r.artifact("1.0.0")
	r.artifact("2.0.0")
	var crashing atomic.Bool
	var calls atomic.Int32
	called := make(chan struct{}, 16)
	health := endpoint(t, func(w http.ResponseWriter, req *http.Request) {
		if !crashing.Load() {
			w.WriteHeader(http.StatusOK)
			return
		}
		calls.Add(1)
		called <- struct{}{}
		// The test kills the server now: the call never answers.
		<-req.Context().Done()
	})
	r.env("staging", rollbackEnv(health+"/health", "targets/hello"))
	r.srv.start()
	target := r.target("targets/hello")

	// Given 1.0.0 in service.
	good := r.deployFollowed(r.descriptor("hello-good", "staging", "1.0.0", ""))
	if good.State != "SUCCESS" {
		t.Fatalf("good deploy: %s", good.State)
	}

	// When 2.0.0's post-test kills its worker at every call.
	crashing.Store(true)
	follow := r.manentBackground(tokenCI, "deploy", "-f", r.descriptor("hello-crashing", "staging", "2.0.0", ""),
		"-o", "json", "--timeout", "3m")
	starts := 1
	for ended := false; !ended; {
		select {
		case <-called:
			if n := calls.Load(); n > 6 {
				t.Fatalf("the health check was called %d times: the step is never given up\nserver:\n%s", n, r.srv.output())
			}
			r.srv.kill()
			r.srv.start()
			starts++
		case <-follow.done:
			ended = true
		case <-time.After(3 * time.Minute):
			t.Fatalf("the deploy did not end; health called %d times\nserver:\n%s", calls.Load(), r.srv.output())
		}
	}

	// Then the step ran in four processes, and the fifth gave up on it.
	if follow.code != 1 {
		t.Fatalf("manent deploy: exit %d, want 1\nstderr:\n%s", follow.code, follow.err.String())
	}
	var st deployStatus
	if err := json.Unmarshal(follow.out.Bytes(), &st); err != nil {
		t.Fatalf("status JSON: %v\n%s", err, follow.out.String())
	}
	if n := calls.Load(); n != 4 || starts != 5 {
		t.Errorf("health check called %d times over %d starts, want 4 over 5", n, starts)
	}
	if st.State != "MAX_RECOVERY_ATTEMPTS_EXCEEDED" {
		t.Fatalf("state %s, want MAX_RECOVERY_ATTEMPTS_EXCEEDED: %s", st.State, st.errorText())
	}
	if msg := st.errorText(); !strings.Contains(msg, "post-test") || !strings.Contains(msg, "stopped 4 times") ||
		!strings.Contains(msg, "max_recovery_attempts is 3") {
		t.Errorf("error %q does not say that post-test stopped its worker 4 times (max_recovery_attempts 3)", msg)
	}
	for _, s := range st.Steps {
		if s.Name == "post-test" && s.State != "ERROR" || s.Name == "activation" && s.State != "SKIPPED" {
			t.Errorf("step %s: %s", s.Name, s.State)
		}
	}
	// The deploy log is not checked for the "runs again (run N)" lines:
	// they are written in the background, and a worker killed within
	// milliseconds of a line loses it.

	// And the release it added is gone, the previous one still in service.
	if st.Rollback == nil || st.Rollback.State != "completed" || len(st.Rollback.Steps) != 1 ||
		st.Rollback.Steps[0].Name != "rollback:deploy" || st.Rollback.Steps[0].State != "SUCCESS" {
		t.Fatalf("rollback = %+v, want completed with rollback:deploy SUCCESS", st.Rollback)
	}
	if got, want := journalLines(t, target), []string{"deploy 1.0.0", "activate 1.0.0", "deploy 2.0.0", "remove 2.0.0"}; !slices.Equal(got, want) {
		t.Errorf("journal = %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(target, "releases/2.0.0")); !os.IsNotExist(err) {
		t.Errorf("releases/2.0.0 is still on the target (%v)", err)
	}
	if cur := currentLink(t, target); cur != "releases/1.0.0" {
		t.Errorf("current -> %q, want releases/1.0.0", cur)
	}
}
