package engine_test

import (
	"context"
	"crypto/x509"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
)

// The worker process TestHTTPStepKeySurvivesSIGKILL starts: its phase
// (kill or recover), its directory and database, and the hook's URL.
const (
	hookKillPhaseEnv = "MANENT_TEST_HOOK_KILL_PHASE"
	hookKillDirEnv   = "MANENT_TEST_HOOK_KILL_DIR"
	hookKillURLEnv   = "MANENT_TEST_HOOK_KILL_DATABASE"
	hookKillHookEnv  = "MANENT_TEST_HOOK_KILL_HOOK"
)

// TestHTTPStepKeySurvivesSIGKILL: a worker killed with SIGKILL while its
// HTTP step waits for the answer leaves the step unrecorded; the worker
// that recovers the deploy sends the request again with the same
// Idempotency-Key, so the API can tell it is the same operation.
func TestHTTPStepKeySurvivesSIGKILL(t *testing.T) {
	if phase := os.Getenv(hookKillPhaseEnv); phase != "" {
		runHookKillPhase(t, phase)
		return
	}
	dir := t.TempDir()
	url := pgtest.URL(t)
	arrived := make(chan struct{}, 1)
	h := newHookServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			// Held without an answer until the worker is killed.
			arrived <- struct{}{}
			<-r.Context().Done()
			return
		}
		_, _ = w.Write([]byte(`{}`))
	})
	writeCert(t, h, filepath.Join(dir, "hook.pem"))
	start := func(phase string) *killChild {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHTTPStepKeySurvivesSIGKILL$", "-test.v")
		cmd.Env = append(os.Environ(), hookKillPhaseEnv+"="+phase, hookKillDirEnv+"="+dir, hookKillURLEnv+"="+url,
			hookKillHookEnv+"="+h.URL+"/hook")
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
	killed := start("kill")
	select {
	case <-arrived:
	case err := <-killed.exited:
		killed.done = true
		t.Fatalf("the worker ended before the request: %v\n%s", err, killed.out.String())
	case <-time.After(5 * time.Minute):
		t.Fatalf("no request from the worker\n%s", killed.out.String())
	}
	killed.kill(t)
	start("recover").waitSuccess(t)

	keys := h.keysOf("/hook")
	if len(keys) != 2 || keys[0] != "hk-kill:hook" || keys[1] != keys[0] {
		t.Fatalf("keys %q: the request after the crash must carry the key of the first", keys)
	}
	ctx := context.Background()
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	d, err := postgres.NewStore(db).Get(ctx, "hk-kill")
	if err != nil {
		t.Fatal(err)
	}
	if s := step(d, "hook"); d.State != deploy.StateSuccess || s.State != deploy.StepSuccess {
		t.Fatalf("deploy %s, hook %+v", d.State, s)
	}
}

// runHookKillPhase is the worker process: the same executor ID in both
// phases, so that the second recovers what the first left.
func runHookKillPhase(t *testing.T, phase string) {
	dir := os.Getenv(hookKillDirEnv)
	pem, err := os.ReadFile(filepath.Join(dir, "hook.pem"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		t.Fatal("no certificate in hook.pem")
	}
	e := newEnvWith(t, envOptions{url: os.Getenv(hookKillURLEnv), dir: dir, executorID: "hookkill", rootCAs: roots,
		steps: []string{
			"{name: artifacts, mode: mandatory}",
			"{name: deploy, mode: mandatory}",
			`{name: hook, mode: mandatory, type: http, max_retries: 0, run: {url: "` + os.Getenv(hookKillHookEnv) + `"}}`,
		}})
	if phase == "kill" {
		e.submit("hk-kill", "app", "staging")
		select {} // until the test kills the process
	}
	waitEnded(t, e, "hk-kill", 5*time.Minute)
}
