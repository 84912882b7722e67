package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listedStatus is the part of the status JSON the tests of this file read,
// from `manent list`, `manent activity` and `manent status`.
type listedStatus struct {
	ID          string  `json:"id"`
	State       string  `json:"state"`
	CancelledBy *string `json:"cancelled_by"`
	Error       *string `json:"error"`
	After       *struct {
		Status       string `json:"status"`
		Dependencies []struct {
			ID    string `json:"id"`
			State string `json:"state"`
		} `json:"dependencies"`
	} `json:"after"`
	Schedule *struct {
		At time.Time `json:"at"`
	} `json:"schedule"`
}

func (s listedStatus) text(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// listed runs a listing command of the CLI with -o json and returns its
// deploys by ID.
func (r *rig) listed(args ...string) map[string]listedStatus {
	r.t.Helper()
	out, errOut, code := r.manent(tokenAdmin, append(args, "-o", "json")...)
	if code != 0 {
		r.t.Fatalf("manent %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	var list []listedStatus
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		r.t.Fatalf("manent %s JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
	byID := map[string]listedStatus{}
	for _, s := range list {
		byID[s.ID] = s
	}
	return byID
}

// statusOf is `manent status ID -o json`.
func (r *rig) statusOf(id string) listedStatus {
	r.t.Helper()
	out, errOut, code := r.manent(tokenAdmin, "status", id, "-o", "json")
	if code != 0 {
		r.t.Fatalf("manent status %s: exit %d\n%s", id, code, errOut)
	}
	var st listedStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		r.t.Fatalf("status JSON: %v\n%s", err, out)
	}
	return st
}

// The CLI tells what happened, as the deploys themselves say it: the lists
// show a wait for dependencies as the status does, a cancel says who
// cancelled and where, a rejection answers with the state it produced, and
// a DELAYED deploy's status has its start time.
func TestCLISaysWhatHappened(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy", "activation"}, maxRecovery: 3, governance: approvalRule})
	r.artifact("1.0.0")
	r.env("staging", "plugin: local\ntargets:\n  - path: targets/staging\n")
	r.env("prod", "plugin: local\ntargets:\n  - path: targets/prod\n")
	// The artifact of hello-held is served by a handler that holds the
	// download until the test lets it go.
	artifact, err := os.ReadFile(filepath.Join(repoRoot(), "examples/artifacts/hello-1.0.0.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	downloading, letGo := make(chan struct{}), make(chan struct{})
	src := endpoint(t, func(w http.ResponseWriter, _ *http.Request) {
		select {
		case <-downloading:
		default:
			close(downloading)
		}
		<-letGo
		_, _ = w.Write(artifact)
	})
	r.srv.start()

	gate := r.submit(r.descriptor("hello-gate", "prod", "1.0.0", ""))
	child := r.submit(r.descriptor("hello-child", "staging", "1.0.0", "after: [hello-gate]\n"))
	at := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	later := r.submit(r.descriptor("hello-later", "staging", "1.0.0", "schedule:\n  at: "+at.Format(time.RFC3339)+"\n"))
	r.waitState(gate, "AWAITING_APPROVAL")
	r.waitState(child, "WAITING_DEPENDENCY")
	r.waitState(later, "DELAYED")

	// The lists show the wait as the deploy does.
	for _, cmd := range [][]string{{"list"}, {"activity"}} {
		c := r.listed(cmd...)[child]
		if c.After == nil || c.After.Status != "waiting" || len(c.After.Dependencies) != 1 ||
			c.After.Dependencies[0].ID != gate || c.After.Dependencies[0].State != "AWAITING_APPROVAL" {
			t.Errorf("manent %s: %s after %+v, want waiting on %s AWAITING_APPROVAL", cmd[0], child, c.After, gate)
		}
	}
	// A DELAYED deploy says when it starts.
	for name, st := range map[string]listedStatus{"status": r.statusOf(later), "list": r.listed("list")[later]} {
		if st.Schedule == nil || !st.Schedule.At.Equal(at) {
			t.Errorf("manent %s %s: schedule %+v, want at %s", name, later, st.Schedule, at)
		}
	}

	// A cancelled wait says it was cancelled, by whom, and stays so.
	if _, errOut, code := r.manent(tokenAdmin, "cancel", child); code != 0 {
		t.Fatalf("manent cancel %s: exit %d\n%s", child, code, errOut)
	}
	c := r.listed("list")[child]
	if c.State != "CANCELLED" || c.After == nil || c.After.Status != "cancelled" || c.text(c.CancelledBy) != "token:demo-admin" ||
		c.text(c.Error) != "cancelled by token:demo-admin while WAITING_DEPENDENCY" {
		t.Errorf("cancelled %s listed as %s, after %+v, by %q, error %q", child, c.State, c.After, c.text(c.CancelledBy), c.text(c.Error))
	}

	// A rejection answers with the state it produced.
	out, errOut, code := r.manent(tokenAdmin, "reject", gate, "-m", "not now")
	if code != 0 || out != "deployment hello-gate: rejected; now REJECTED\n" {
		t.Errorf("manent reject: exit %d, stdout %q\n%s", code, out, errOut)
	}
	if st := r.statusOf(gate); st.State != "REJECTED" || st.text(st.Error) != "rejected by token:demo-admin: not now" {
		t.Errorf("%s after the rejection: %s, error %q", gate, st.State, st.text(st.Error))
	}

	// A run cancelled between two steps says who stopped it, and where.
	held := r.submit(r.descriptorFrom("hello-held", "staging", "1.0.0", src+"/hello-1.0.0.tar.gz", ""))
	<-downloading
	if _, errOut, code := r.manent(tokenAdmin, "cancel", held); code != 0 {
		t.Fatalf("manent cancel %s: exit %d\n%s", held, code, errOut)
	}
	close(letGo)
	if st := r.followToEnd(held); st.State != "CANCELLED" {
		t.Fatalf("%s ended %s: %s", held, st.State, st.errorText())
	}
	st := r.statusOf(held)
	if want := "cancelled by token:demo-admin after step artifacts, before deploy"; st.text(st.Error) != want || st.text(st.CancelledBy) != "token:demo-admin" {
		t.Errorf("%s: error %q, cancelled by %q; want %q by token:demo-admin", held, st.text(st.Error), st.text(st.CancelledBy), want)
	}
	table, _, _ := r.manent(tokenAdmin, "status", held)
	if !strings.Contains(table, "Cancelled by  token:demo-admin\n") {
		t.Errorf("manent status %s lacks who cancelled it:\n%s", held, table)
	}
	if _, errOut, code := r.manent(tokenAdmin, "cancel", later); code != 0 {
		t.Fatalf("manent cancel %s: exit %d\n%s", later, code, errOut)
	}
}
