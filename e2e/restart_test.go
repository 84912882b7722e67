package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const approvalRule = `  approvals:
    - name: hello-prod
      match: {tenant: demo, application: hello, environment: prod}
      count: 1
      expiry: 24h
`

// scheduleView is an entry of `manent schedule list -o json`.
type scheduleView struct {
	Name           string     `json:"name"`
	State          string     `json:"state"`
	NextTick       *time.Time `json:"next_tick"`
	LastTick       *time.Time `json:"last_tick"`
	LastDeployment string     `json:"last_deployment"`
}

func (r *rig) schedule(name string) scheduleView {
	r.t.Helper()
	out, errOut, code := r.manent(tokenAdmin, "schedule", "list", "-o", "json")
	if code != 0 {
		r.t.Fatalf("manent schedule list: exit %d\n%s", code, errOut)
	}
	var list []scheduleView
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		r.t.Fatalf("schedule list JSON: %v\n%s", err, out)
	}
	for _, s := range list {
		if s.Name == name {
			return s
		}
	}
	r.t.Fatalf("schedule %s not listed: %s", name, out)
	return scheduleView{}
}

// waitSchedule reads the schedule until ok: the schedule's workflow has no
// event stream, so this polls its list with a short interval.
func (r *rig) waitSchedule(name string, ok func(scheduleView) bool) scheduleView {
	r.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s := r.schedule(name)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("schedule %s = %+v after 2 minutes\nserver:\n%s", name, s, r.srv.output())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// deployments lists every deploy with its status JSON.
func (r *rig) deployments() []deployStatus {
	r.t.Helper()
	out, errOut, code := r.manent(tokenAdmin, "list", "--limit", "0", "-o", "json")
	if code != 0 {
		r.t.Fatalf("manent list: exit %d\n%s", code, errOut)
	}
	var list []deployStatus
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		r.t.Fatalf("list JSON: %v\n%s", err, out)
	}
	return list
}

// submitSchedule posts a schedule.cron descriptor to the REST API, which
// answers 201 with the schedule (a schedule is not a deploy).
func (r *rig) submitSchedule(path string) {
	r.t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		r.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, r.srv.URL()+"/api/v1/deployments", bytes.NewReader(doc))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tokenCI)
	req.Header.Set("Content-Type", "application/yaml")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		State    string       `json:"state"`
		Schedule scheduleView `json:"schedule"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != http.StatusCreated || body.State != "SCHEDULED" {
		r.t.Fatalf("submit schedule: %d %+v, want 201 SCHEDULED", resp.StatusCode, body)
	}
}

// TestWaitsSurviveRestarts puts in place one deploy in each kind of wait —
// DELAYED (schedule.at), AWAITING_APPROVAL, WAITING_DEPENDENCY — and a
// recurring schedule, then restarts the server 30 times, SIGKILL and SIGTERM
// mixed, with engine.max_recovery_attempts 3. A wait is not a step: no
// restart counts against it, so every wait is still in place afterwards and
// ends the way it would have without the restarts.
func TestWaitsSurviveRestarts(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy", "activation"}, maxRecovery: 3, governance: approvalRule})
	r.artifact("1.0.0")
	r.env("staging", "plugin: local\ntargets:\n  - path: targets/staging\n")
	r.env("prod", "plugin: local\ntargets:\n  - path: targets/prod\n")
	r.srv.start()

	// Given a deploy in each wait, and a schedule that ticks every minute.
	at := time.Now().Add(60 * time.Second).UTC().Truncate(time.Second)
	delayed := r.submit(r.descriptor("hello-at", "staging", "1.0.0", "schedule:\n  at: "+at.Format(time.RFC3339)+"\n"))
	approval := r.submit(r.descriptor("hello-prod", "prod", "1.0.0", ""))
	dependent := r.submit(r.descriptor("hello-after", "staging", "1.0.0", "after: [hello-prod]\n"))
	r.submitSchedule(r.descriptor("hello-minutely", "staging", "1.0.0", "schedule:\n  cron: \"* * * * *\"\n"))
	r.waitState(delayed, "DELAYED")
	r.waitState(approval, "AWAITING_APPROVAL")
	r.waitState(dependent, "WAITING_DEPENDENCY")
	r.waitSchedule("hello-minutely", func(s scheduleView) bool { return s.NextTick != nil })

	// When the server is restarted 30 times: runs of five SIGKILLs, then a
	// SIGTERM.
	check := func(round int) (running bool) {
		t.Helper()
		for _, d := range r.deployments() {
			switch {
			case d.State == "MAX_RECOVERY_ATTEMPTS_EXCEEDED" || d.State == "ERROR":
				t.Fatalf("restart %d: %s ended %s: %s\nserver:\n%s", round, d.ID, d.State, d.errorText(), r.srv.output())
			case d.ID == approval && d.State != "AWAITING_APPROVAL",
				d.ID == dependent && d.State != "WAITING_DEPENDENCY":
				t.Fatalf("restart %d: %s is %s", round, d.ID, d.State)
			case d.State == "ENQUEUED" || d.State == "PENDING":
				running = true
			}
		}
		// Read after the answer: the server read it before this instant.
		if d := r.status(delayed); time.Now().Before(at) && d.State != "DELAYED" {
			t.Fatalf("restart %d: %s is %s before its time %s", round, delayed, d.State, at)
		}
		return running
	}
	const restarts = 30
	kills, terms := 0, 0
	for i := 1; i <= restarts; i++ {
		// A kill lands on the waits only: a tick (or the delayed deploy,
		// once its time came) that runs is let finish first, so no step is
		// killed twice in a row.
		for check(i) {
			time.Sleep(100 * time.Millisecond)
		}
		if i%6 == 0 {
			r.srv.terminate()
			terms++
		} else {
			r.srv.kill()
			kills++
		}
		r.srv.start()
	}
	check(restarts)
	t.Logf("%d restarts: %d SIGKILL, %d SIGTERM; the delayed deploy's time is %s away", restarts, kills, terms,
		time.Until(at).Round(time.Second))

	// Then the approval is still awaited, and once given the deploy and the
	// one waiting on it run.
	if st := r.status(approval); st.State != "AWAITING_APPROVAL" || st.Approval == nil || st.Approval.Status != "waiting" {
		t.Fatalf("%s after the restarts: %s, approval %+v", approval, st.State, st.Approval)
	}
	out, errOut, code := r.manent(tokenAdmin, "approve", approval, "-m", "after 30 restarts")
	if code != 0 {
		t.Fatalf("manent approve %s: exit %d\n%s\n%s", approval, code, out, errOut)
	}
	if st := r.followToEnd(approval); st.State != "SUCCESS" {
		t.Fatalf("%s ended %s: %s", approval, st.State, st.errorText())
	}
	if st := r.followToEnd(dependent); st.State != "SUCCESS" {
		t.Fatalf("%s ended %s: %s", dependent, st.State, st.errorText())
	}
	// The delayed deploy runs at its time, not before.
	st := r.followToEnd(delayed)
	if st.State != "SUCCESS" || st.StartedAt == nil || st.StartedAt.Before(at) {
		t.Fatalf("%s: %s, started %v, its time %s: %s", delayed, st.State, st.StartedAt, at, st.errorText())
	}
	// The schedule still has a next tick, and its ticks deploy.
	if s := r.schedule("hello-minutely"); s.NextTick == nil || s.State != "SCHEDULED" {
		t.Fatalf("schedule after the restarts: %+v", s)
	}
	s := r.waitSchedule("hello-minutely", func(s scheduleView) bool { return s.LastDeployment != "" })
	if !strings.HasPrefix(s.LastDeployment, "hello-minutely@") {
		t.Fatalf("tick deploy %q, want hello-minutely@<time>", s.LastDeployment)
	}
	if st := r.followToEnd(s.LastDeployment); st.State != "SUCCESS" {
		t.Fatalf("tick %s ended %s: %s", s.LastDeployment, st.State, st.errorText())
	}
	for _, d := range r.deployments() {
		if d.State == "MAX_RECOVERY_ATTEMPTS_EXCEEDED" || d.State == "ERROR" {
			t.Errorf("%s ended %s: %s", d.ID, d.State, d.errorText())
		}
	}
}

// holds is an HTTP endpoint whose every call waits until the test lets it
// answer: the step that makes the call is running, for as long as the test
// wants. Each call is announced on called with its path.
type holds struct {
	called  chan string
	release chan struct{}
	mu      sync.Mutex
	count   map[string]int
}

func newHolds() *holds {
	return &holds{called: make(chan string, 16), release: make(chan struct{}), count: map[string]int{}}
}

func (h *holds) calls(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.count[path]
}

// handler answers body (200) once released; a call whose caller went away
// first answers nothing.
func (h *holds) handler(body func(path string) []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		h.mu.Lock()
		h.count[req.URL.Path]++
		h.mu.Unlock()
		h.called <- req.URL.Path
		select {
		case <-h.release:
		case <-req.Context().Done():
			return
		}
		_, _ = w.Write(body(req.URL.Path))
	}
}

// TestGracefulRestartIsNotARecovery: with engine.max_recovery_attempts 1,
// two deploys in sequence, each with two slow steps (an artifact download
// and a post-test the test holds), and a SIGTERM while each of those four
// steps runs: the step in progress is let finish (the test lets it answer
// right after the SIGTERM), nothing new begins, and the next process goes
// on where the last one stopped. A graceful restart is not a recovery: no
// step runs twice, none is counted as run again, both deploys succeed.
func TestGracefulRestartIsNotARecovery(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy", "post-test", "activation"}, maxRecovery: 1})
	tarball, err := os.ReadFile(filepath.Join(repoRoot(), "examples/artifacts/hello-1.0.0.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	h := newHolds()
	url := endpoint(t, h.handler(func(path string) []byte {
		if strings.HasSuffix(path, ".tar.gz") {
			return tarball
		}
		return []byte("ok")
	}))
	r.env("staging", fmt.Sprintf("plugin: local\ntargets:\n  - path: targets/hello\nhealth:\n  - url: %s/health\n", url))
	r.srv.start()

	// Given two deploys of the same environment: the second waits for the
	// first in the queue.
	var ids []string
	for _, v := range []string{"1.0.0", "2.0.0"} {
		id := "hello-" + v
		ids = append(ids, r.submit(r.descriptorFrom(id, "staging", v, url+"/hello-"+v+".tar.gz", "")))
	}

	// When the server gets a SIGTERM while each slow step runs.
	want := []string{"/hello-1.0.0.tar.gz", "/health", "/hello-2.0.0.tar.gz", "/health"}
	for i, path := range want {
		select {
		case got := <-h.called:
			if got != path {
				t.Fatalf("SIGTERM %d: the call in progress is %s, want %s", i+1, got, path)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("SIGTERM %d: %s was never called\nserver:\n%s", i+1, path, r.srv.output())
		}
		r.srv.sigterm()
		select {
		case h.release <- struct{}{}:
		case <-time.After(time.Minute):
			t.Fatalf("SIGTERM %d: %s no longer waits for its answer\nserver:\n%s", i+1, path, r.srv.output())
		}
		r.srv.waitExit()
		if code := r.srv.exitCode(); code != 0 {
			t.Errorf("SIGTERM %d: manent-server exited %d", i+1, code)
		}
		r.srv.start()
	}

	// Then both deploys succeed, every step ran once, none ran again.
	for _, id := range ids {
		st := r.followToEnd(id)
		if st.State != "SUCCESS" {
			t.Errorf("%s ended %s: %s", id, st.State, st.errorText())
		}
		for _, s := range st.Steps {
			if s.State != "SUCCESS" || s.Attempts != 1 {
				t.Errorf("%s: step %s %s after %d attempt(s), want SUCCESS at the first", id, s.Name, s.State, s.Attempts)
			}
		}
		if log := r.logText(id); len(reruns(log)) > 0 {
			t.Errorf("%s: a graceful restart was counted as a recovery:\n%s", id, log)
		}
	}
	for _, d := range r.deployments() {
		if d.State == "MAX_RECOVERY_ATTEMPTS_EXCEEDED" {
			t.Errorf("%s ended MAX_RECOVERY_ATTEMPTS_EXCEEDED: %s", d.ID, d.errorText())
		}
	}
	for _, path := range []string{"/hello-1.0.0.tar.gz", "/hello-2.0.0.tar.gz"} {
		if n := h.calls(path); n != 1 {
			t.Errorf("%s downloaded %d times, want once", path, n)
		}
	}
	if n := h.calls("/health"); n != 2 {
		t.Errorf("health checked %d times, want once per deploy", n)
	}
	wantJournal := []string{"deploy 1.0.0", "activate 1.0.0", "deploy 2.0.0", "activate 2.0.0"}
	if got := journalLines(t, r.target("targets/hello")); !slices.Equal(got, wantJournal) {
		t.Errorf("journal = %q, want %q", got, wantJournal)
	}
}
