package custom

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// operation is an asynchronous API: POST /purge starts op-7 and answers its
// id; GET /purges/op-7 answers the states of script one after the other,
// the last one for ever. Each answer is "status" or "status:state".
type operation struct {
	mu     sync.Mutex
	script []string
	polls  int
	keys   []string
	auth   []string
}

func (o *operation) handler(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.keys = append(o.keys, r.Header.Get("Idempotency-Key"))
	o.auth = append(o.auth, r.Header.Get("Authorization"))
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/purge":
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"result": {"id": "op-7"}}`)
	case r.Method == http.MethodGet && r.URL.Path == "/purges/op-7":
		s := o.script[min(o.polls, len(o.script)-1)]
		o.polls++
		code, state, _ := strings.Cut(s, ":")
		if code != "200" {
			w.WriteHeader(map[string]int{"503": 503, "429": 429, "404": 404}[code])
			return
		}
		_, _ = io.WriteString(w, `{"status": "`+state+`", "result": {"files": 12}}`)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func (f *fixture) pollSpec(p deploy.HTTPPoll) *deploy.CustomSpec {
	spec := f.spec("/purge")
	p.URL = f.srv.URL + "/purges/{{ .Response.result.id }}"
	if p.Interval == 0 {
		p.Interval = time.Millisecond
	}
	spec.Run.Poll = &p
	spec.Run.Auth = &deploy.HTTPAuth{Type: "bearer", Secret: "cdn-token"}
	spec.Outputs = map[string]deploy.OutputSpec{
		"purge_id": {Pattern: "op-[0-9]+", Path: "$.result.id"},
		"files":    {Pattern: "[0-9]+", Path: "$.result.files"},
	}
	return spec
}

var (
	untilDone  = &deploy.PollMatch{Path: "$.status", In: []string{"done"}}
	failFailed = &deploy.PollMatch{Path: "$.status", In: []string{"failed", "cancelled"}}
)

// TestPoll: the wait for the operation the request started, inside the
// step: until and fail by path and values, temporary answers waited
// through, other statuses permanent, and the poll's timeout temporary.
func TestPoll(t *testing.T) {
	tests := []struct {
		name      string
		script    []string
		poll      deploy.HTTPPoll
		ok        bool
		permanent bool
		err       string
		polls     int
	}{
		{name: "done", script: []string{"200:pending", "200:running", "200:done"}, poll: deploy.HTTPPoll{Until: untilDone, Fail: failFailed},
			ok: true, polls: 3},
		{name: "temporary answers waited through", script: []string{"503", "200:running", "429", "200:done"},
			poll: deploy.HTTPPoll{Until: untilDone, Fail: failFailed}, ok: true, polls: 4},
		{name: "failed", script: []string{"200:running", "200:cancelled"}, poll: deploy.HTTPPoll{Until: untilDone, Fail: failFailed},
			permanent: true, err: `the operation failed: $.status is "cancelled"`, polls: 2},
		{name: "not found", script: []string{"200:running", "404"}, poll: deploy.HTTPPoll{Until: untilDone},
			permanent: true, err: "answered 404", polls: 2},
		{name: "timeout", script: []string{"200:running"}, poll: deploy.HTTPPoll{Until: untilDone, Timeout: 50 * time.Millisecond},
			err: "not done after 50ms"},
		{name: "without until, the first 2xx", script: []string{"503", "200:whatever"}, poll: deploy.HTTPPoll{Fail: failFailed},
			ok: true, polls: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := &operation{script: tt.script}
			f := newFixture(t, op.handler)
			res, err := f.run(f.pollSpec(tt.poll))
			switch {
			case tt.ok && err != nil:
				t.Fatal(err)
			case tt.ok && (res.Output["purge_id"] != "op-7" || res.Output["files"] != "12"):
				t.Fatalf("outputs %v: purge_id from the first answer, files from the last", res.Output)
			case !tt.ok && (err == nil || deploy.IsPermanent(err) != tt.permanent || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("error %v, want permanent=%v with %q", err, tt.permanent, tt.err)
			}
			op.mu.Lock()
			defer op.mu.Unlock()
			if tt.polls > 0 && op.polls != tt.polls {
				t.Errorf("%d polls, want %d", op.polls, tt.polls)
			}
			for i, k := range op.keys {
				if k != "d-1:cdn-purge" || op.auth[i] != "Bearer "+tokenValue {
					t.Errorf("request %d: key %q, auth %q", i, k, op.auth[i])
				}
			}
		})
	}
}

// TestPollTimeoutDefaultsToTheStep's: without poll.timeout the wait lasts
// as long as the step may.
func TestPollTimeoutDefaultsToTheSteps(t *testing.T) {
	op := &operation{script: []string{"200:running"}}
	f := newFixture(t, op.handler)
	spec := f.pollSpec(deploy.HTTPPoll{Until: untilDone})
	spec.Timeout = 60 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := httpKind{f.kinds}.Run(ctx, f.context(spec))
	if err == nil || deploy.IsPermanent(err) || !strings.Contains(err.Error(), "not done after 60ms") {
		t.Fatalf("error %v", err)
	}
}
