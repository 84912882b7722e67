package engine_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
)

// The worker process TestCallbackSurvivesSIGKILL starts: its phase, its
// directory and database, and the receiver's URL.
const (
	cbKillPhaseEnv = "MANENT_TEST_CB_KILL_PHASE"
	cbKillDirEnv   = "MANENT_TEST_CB_KILL_DIR"
	cbKillURLEnv   = "MANENT_TEST_CB_KILL_DATABASE"
	cbKillRecvEnv  = "MANENT_TEST_CB_KILL_RECEIVER"
)

// TestCallbackSurvivesSIGKILL: a worker killed with SIGKILL while a
// delivery waits for the receiver's answer leaves the attempt unrecorded;
// the worker that recovers sends the event again with the same webhook-id,
// and the delivery ends delivered.
func TestCallbackSurvivesSIGKILL(t *testing.T) {
	if phase := os.Getenv(cbKillPhaseEnv); phase != "" {
		runCallbackKillPhase(t, phase)
		return
	}
	dir := t.TempDir()
	url := pgtest.URL(t)
	arrived := make(chan struct{}, 1)
	held := make(chan struct{})
	r := newReceiver(t, func(_ string, n int) int {
		if n == 1 {
			arrived <- struct{}{}
			// Held until the test ends: the worker is killed first.
			<-held
		}
		return http.StatusOK
	})
	t.Cleanup(func() { close(held) })
	start := func(phase string) *killChild {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCallbackSurvivesSIGKILL$", "-test.v")
		cmd.Env = append(os.Environ(), cbKillPhaseEnv+"="+phase, cbKillDirEnv+"="+dir, cbKillURLEnv+"="+url,
			cbKillRecvEnv+"="+r.url("/hook"))
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
		t.Fatalf("the worker ended before the delivery: %v\n%s", err, killed.out.String())
	case <-time.After(5 * time.Minute):
		t.Fatalf("no delivery from the worker\n%s", killed.out.String())
	}
	killed.kill(t)
	start("recover").waitSuccess(t)

	reqs := r.requests()
	if len(reqs) != 2 || reqs[0].ID != "cb-kill:event:finished" || reqs[1].ID != reqs[0].ID || string(reqs[1].Body) != string(reqs[0].Body) {
		t.Fatalf("requests %+v: the one after the crash must carry the first's webhook-id and body", reqs)
	}
	if !reqs[1].verifies(receiverKey) {
		t.Errorf("the delivery after the crash is not signed")
	}
	ctx := context.Background()
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	dls, err := postgres.NewStore(db).Deliveries(ctx, "cb-kill")
	if err != nil || len(dls) != 1 || dls[0].State != deploy.DeliveryDelivered {
		t.Fatalf("deliveries %+v, %v", dls, err)
	}
}

// runCallbackKillPhase is the worker process: the same executor ID in both
// phases, so that the second recovers what the first left.
func runCallbackKillPhase(t *testing.T, phase string) {
	e := callbackEnvWith(t, envOptions{url: os.Getenv(cbKillURLEnv), dir: os.Getenv(cbKillDirEnv), executorID: "cbkill"}, "")
	if phase == "kill" {
		e.submitWithCallbacks("cb-kill", "  - {url: "+os.Getenv(cbKillRecvEnv)+", events: [finished]}\n")
		select {} // until the test kills the process
	}
	e.waitDeliveries("cb-kill", 1)
}
