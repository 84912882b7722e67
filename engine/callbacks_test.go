package engine_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// receiverKey is the signing secret of the tests' callbacks policy, as
// Standard Webhooks writes it; receiverKeyBytes is what it encodes.
const receiverKey = "whsec_bWFuZW50LXRlc3Qta2V5LTAxMjM0NTY3ODk="

// otherKey is the first key of the tests' policy, which the receivers do
// not know: every key signs, so a receiver knowing the second verifies.
const otherKey = "whsec_b3RoZXItdGVzdC1rZXktOTg3NjU0MzIxMA=="

// delivered is one request a receiver got.
type delivered struct {
	ID, Timestamp, Signature, UserAgent string
	Body                                []byte
	At                                  time.Time
}

// receiver is a loopback webhook receiver: it records every request and
// answers what answer says for the n-th request of an ID (from 1).
type receiver struct {
	t      *testing.T
	mu     sync.Mutex
	got    []delivered
	perID  map[string]int
	answer func(id string, n int) int
	server *http.Server
	ln     net.Listener
	addr   string
}

func newReceiver(t *testing.T, answer func(id string, n int) int) *receiver {
	r := &receiver{t: t, perID: map[string]int{}, answer: answer}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	r.serve(ln)
	t.Cleanup(r.stop)
	return r
}

func (r *receiver) serve(ln net.Listener) {
	r.ln = ln
	r.server = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := req.Body.Read(buf)
			body.Write(buf[:n])
			if err != nil {
				break
			}
		}
		d := delivered{ID: req.Header.Get("webhook-id"), Timestamp: req.Header.Get("webhook-timestamp"),
			Signature: req.Header.Get("webhook-signature"), UserAgent: req.Header.Get("User-Agent"), Body: []byte(body.String()), At: time.Now()}
		r.mu.Lock()
		r.got = append(r.got, d)
		r.perID[d.ID]++
		n := r.perID[d.ID]
		r.mu.Unlock()
		code := http.StatusNoContent
		if r.answer != nil {
			code = r.answer(d.ID, n)
		}
		w.WriteHeader(code)
		_, _ = fmt.Fprint(w, "receiver says\x1b[31m no")
	})}
	go func() { _ = r.server.Serve(ln) }()
}

func (r *receiver) stop() { _ = r.server.Close() }

// restart listens again on the same address.
func (r *receiver) restart() {
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.serve(ln)
}

func (r *receiver) requests() []delivered {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

func (r *receiver) url(path string) string { return "http://" + r.addr + path }

// verify is the Go snippet of docs/callbacks.md, as it is written there
// (TestCallbackSnippets holds the two together).
func verify(secret, id, timestamp string, body []byte, header string) bool {
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	return slices.ContainsFunc(strings.Fields(header), func(s string) bool { return hmac.Equal([]byte(s), []byte(want)) })
}

func (d delivered) verifies(secret string) bool {
	return verify(secret, d.ID, d.Timestamp, d.Body, d.Signature)
}

// callbackEnv is an engine whose policy allows callbacks to loopback.
func callbackEnv(t *testing.T, extra string) *env {
	return callbackEnvWith(t, envOptions{}, extra)
}

// callbackEnvWith is callbackEnv with options; extra adds keys to the
// callbacks section (first_retry is 20ms unless it sets it).
func callbackEnvWith(t *testing.T, o envOptions, extra string) *env {
	if !strings.Contains(extra, "first_retry:") {
		extra += "  first_retry: 20ms\n"
	}
	t.Setenv("MANENT_SECRET_CALLBACK_KEY", receiverKey)
	t.Setenv("MANENT_SECRET_CALLBACK_OTHER", otherKey)
	o.engineYAML = `callbacks:
  allowed: ["http://127.0.0.1:"]
  allow_http: true
  signing_key_refs: [env:MANENT_SECRET_CALLBACK_OTHER, env:MANENT_SECRET_CALLBACK_KEY]
` + extra
	return newEnvWith(t, o)
}

func (e *env) submitWithCallbacks(id, callbacks string) {
	e.t.Helper()
	doc := descriptorFor(id, "app", "staging") + "callbacks:\n" + callbacks
	if _, err := e.eng.Submit(e.ctx, []byte(doc), deploy.SubmitOptions{}); err != nil {
		e.t.Fatalf("submit %s: %v", id, err)
	}
}

// waitDeliveries waits until the deploy ended and every delivery of its
// callbacks is final, and returns it.
func (e *env) waitDeliveries(id string, n int) *deploy.Deployment {
	return e.wait(id, func(d *deploy.Deployment) bool {
		if !d.State.Terminal() || len(d.Deliveries) < n {
			return false
		}
		for _, dl := range d.Deliveries {
			if !dl.State.Final() {
				return false
			}
		}
		return true
	})
}

// Every event of a deploy reaches its callback once per webhook-id,
// signed, with the status JSON; the status shows each delivery.
func TestCallbacksDeliverEveryEventSigned(t *testing.T) {
	e := callbackEnv(t, "")
	r := newReceiver(t, nil)
	e.submitWithCallbacks("cb-1", "  - url: "+r.url("/all?token=sekrit")+"\n  - {url: "+r.url("/end")+", events: [finished]}\n")
	d := e.waitDeliveries("cb-1", 0)
	st := deploy.NewStatus(d)
	var steps []string
	for _, s := range st.Steps {
		if s.Kind != deploy.KindCheckpoint {
			steps = append(steps, s.Name)
		}
	}
	d = e.waitDeliveries("cb-1", len(steps)+3)
	if d.State != deploy.StateSuccess {
		t.Fatalf("deploy %s: %s", d.State, d.Error)
	}
	byID := map[string][]delivered{}
	for _, got := range r.requests() {
		if !got.verifies(receiverKey) || !got.verifies(otherKey) || len(strings.Fields(got.Signature)) != 2 {
			t.Errorf("signature of %s does not verify with each key: %s", got.ID, got.Signature)
		}
		if !strings.HasPrefix(got.UserAgent, "manent/") {
			t.Errorf("user agent %q", got.UserAgent)
		}
		byID[got.ID] = append(byID[got.ID], got)
	}
	want := []string{"cb-1:event:started", "cb-1:event:finished"}
	for _, s := range steps {
		want = append(want, "cb-1:event:step:"+s)
	}
	for _, id := range want {
		if len(byID[id]) == 0 {
			t.Errorf("no delivery of %s (got %d IDs)", id, len(byID))
		}
	}
	if len(byID) != len(want) {
		t.Errorf("%d IDs delivered, want %d", len(byID), len(want))
	}
	var fin struct {
		Type string `json:"type"`
		Data struct {
			ID    string       `json:"id"`
			State deploy.State `json:"state"`
			Steps []any        `json:"steps"`
		} `json:"data"`
	}
	finished := byID["cb-1:event:finished"]
	if len(finished) != 2 {
		t.Fatalf("finished delivered %d times, want once to each callback", len(finished))
	}
	if err := json.Unmarshal(finished[0].Body, &fin); err != nil || fin.Type != "deployment.finished" || fin.Data.ID != "cb-1" || len(fin.Data.Steps) == 0 {
		t.Errorf("finished payload %s (%v)", finished[0].Body, err)
	}
	var stepEv struct {
		Type string `json:"type"`
		Data struct {
			Step struct {
				Name  string `json:"name"`
				State string `json:"state"`
			} `json:"step"`
		} `json:"data"`
	}
	if err := json.Unmarshal(byID["cb-1:event:step:deploy"][0].Body, &stepEv); err != nil || stepEv.Type != "deployment.step" ||
		stepEv.Data.Step.Name != "deploy" || stepEv.Data.Step.State != "SUCCESS" {
		t.Errorf("step payload %+v (%v)", stepEv, err)
	}
	st = deploy.NewStatus(d)
	cbs := st.Callbacks
	if len(cbs) != 2 || cbs[0].State != deploy.DeliveryDelivered || cbs[0].URL != r.url("/all") || len(cbs[0].Deliveries) != len(want) ||
		len(cbs[1].Deliveries) != 1 || cbs[1].Events[0] != deploy.NoticeFinished {
		t.Errorf("status callbacks %+v", cbs)
	}
	text, _ := json.Marshal(st)
	if strings.Contains(string(text), "sekrit") {
		t.Errorf("the status shows the callback's query: %s", text)
	}
}

// 500s are retried with the same webhook-id until the receiver takes it.
func TestCallbacksRetryAfterErrors(t *testing.T) {
	e := callbackEnv(t, "")
	r := newReceiver(t, func(_ string, n int) int {
		if n < 3 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	e.submitWithCallbacks("cb-2", "  - {url: "+r.url("/")+", events: [started, finished]}\n")
	d := e.waitDeliveries("cb-2", 2)
	for _, dl := range d.Deliveries {
		if dl.State != deploy.DeliveryDelivered || dl.Attempts != 3 || dl.LastStatus != 200 {
			t.Errorf("delivery %+v", dl)
		}
	}
	got := map[string]int{}
	for _, req := range r.requests() {
		got[req.ID]++
		if !req.verifies(receiverKey) {
			t.Errorf("retry of %s not signed", req.ID)
		}
	}
	if got["cb-2:event:started"] != 3 || got["cb-2:event:finished"] != 3 {
		t.Errorf("requests per ID %v", got)
	}
}

// A receiver down for a while gets the event once it is up again.
func TestCallbacksReachAReceiverThatWasDown(t *testing.T) {
	e := callbackEnv(t, "")
	r := newReceiver(t, nil)
	r.stop()
	e.submitWithCallbacks("cb-3", "  - {url: "+r.url("/")+", events: [started]}\n")
	e.wait("cb-3", func(d *deploy.Deployment) bool {
		return len(d.Deliveries) == 1 && d.Deliveries[0].State == deploy.DeliveryRetrying
	})
	r.restart()
	d := e.waitDeliveries("cb-3", 1)
	if dl := d.Deliveries[0]; dl.State != deploy.DeliveryDelivered || dl.Attempts < 2 || len(r.requests()) != 1 {
		t.Errorf("delivery %+v, %d requests", dl, len(r.requests()))
	}
}

// 410 Gone disables the URL for the tenant: the rest of the deploy's
// events and every later deploy of the tenant send nothing there (their
// deliveries are disabled, saying why), another tenant's deploys still
// call it, and a replay with include-disabled enables it again.
func TestCallbacksStopAt410(t *testing.T) {
	e := callbackEnv(t, "")
	var mu sync.Mutex
	answer := http.StatusGone
	r := newReceiver(t, func(string, int) int {
		mu.Lock()
		defer mu.Unlock()
		return answer
	})
	gone := make(chan struct{})
	e.plugin.deploy = func(ctx context.Context, _ deploy.PluginRequest) error {
		select {
		case <-gone:
		case <-ctx.Done():
		}
		return nil
	}
	e.submitWithCallbacks("cb-4", "  - {url: "+r.url("/")+", events: [started, finished]}\n")
	e.wait("cb-4", func(d *deploy.Deployment) bool {
		return len(d.Deliveries) == 1 && d.Deliveries[0].State == deploy.DeliveryDisabled
	})
	close(gone)
	d := e.waitDeliveries("cb-4", 2)
	for _, dl := range d.Deliveries {
		if dl.State != deploy.DeliveryDisabled || dl.LastError == "" {
			t.Errorf("delivery %+v", dl)
		}
	}
	if n := len(r.requests()); n != 1 {
		t.Errorf("%d requests after a 410, want 1", n)
	}
	if cb := deploy.NewStatus(d).Callbacks[0]; cb.State != deploy.DeliveryDisabled {
		t.Errorf("callback state %s", cb.State)
	}
	// Another deploy of the tenant: nothing sent, disabled, saying why.
	e.submitWithCallbacks("cb-4b", "  - {url: "+r.url("/")+", events: [finished]}\n")
	d = e.waitDeliveries("cb-4b", 1)
	if dl := d.Deliveries[0]; dl.State != deploy.DeliveryDisabled || !strings.Contains(dl.LastError, "410 Gone to an earlier event of this tenant") {
		t.Errorf("a later deploy's delivery to a disabled URL: %+v", dl)
	}
	if n := len(r.requests()); n != 1 {
		t.Errorf("%d requests, want 1: a later deploy of the tenant called a disabled URL", n)
	}
	// Another tenant's deploy still calls it.
	e.configure("acme", "app/staging")
	doc := descriptorIn("acme", "cb-4-acme", "app", "staging") + "callbacks:\n  - {url: " + r.url("/") + ", events: [finished]}\n"
	if _, err := e.eng.Submit(e.as("token:mallory"), []byte(doc), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitDeliveries("cb-4-acme", 1)
	if n := len(r.requests()); n != 2 {
		t.Errorf("%d requests, want 2: another tenant's deploy was kept from a URL this tenant disabled", n)
	}
	// A replay with include-disabled enables the URL again.
	mu.Lock()
	answer = http.StatusOK
	mu.Unlock()
	if _, err := e.eng.Service.ReplayCallbacks(e.ctx, "cb-4b", "", true); err != nil {
		t.Fatal(err)
	}
	e.wait("cb-4b", func(d *deploy.Deployment) bool { return d.Deliveries[0].State == deploy.DeliveryDelivered })
	e.submitWithCallbacks("cb-4c", "  - {url: "+r.url("/")+", events: [finished]}\n")
	if dl := e.waitDeliveries("cb-4c", 1).Deliveries[0]; dl.State != deploy.DeliveryDelivered {
		t.Errorf("after a replay with include-disabled, a new deploy's delivery is %s (%s)", dl.State, dl.LastError)
	}
}

// After the retry window a delivery is dead; a replay sends it again
// with the same webhook-id and body.
func TestCallbacksDeadLetterReplayed(t *testing.T) {
	e := callbackEnv(t, "  retry_window: 1s\n")
	var mu sync.Mutex
	up := false
	r := newReceiver(t, func(string, int) int {
		mu.Lock()
		defer mu.Unlock()
		if up {
			return http.StatusOK
		}
		return http.StatusServiceUnavailable
	})
	e.submitWithCallbacks("cb-5", "  - {url: "+r.url("/")+", events: [finished]}\n")
	d := e.waitDeliveries("cb-5", 1)
	dead := d.Deliveries[0]
	// The status code and a fixed phrase, never what the receiver said.
	if dead.State != deploy.DeliveryDead || !strings.HasPrefix(dead.LastError, "the receiver answered 503 Service Unavailable (retry window") ||
		strings.Contains(dead.LastError, "receiver says") {
		t.Fatalf("delivery %+v", dead)
	}
	if cb := deploy.NewStatus(d).Callbacks[0]; cb.State != deploy.DeliveryDead {
		t.Errorf("callback state %s", cb.State)
	}
	first := r.requests()
	// The last wait is cut to the window's end: the last attempt is made
	// when the window ends, not a whole wait (here 1.2s) before it.
	if span := first[len(first)-1].At.Sub(first[0].At); span < 900*time.Millisecond {
		t.Errorf("the attempts spanned %s of a retry window of 1s (%d attempts)", span, len(first))
	}
	mu.Lock()
	up = true
	mu.Unlock()
	if _, err := e.eng.Service.ReplayCallbacks(e.ctx, "cb-5", "", false); err != nil {
		t.Fatal(err)
	}
	d = e.wait("cb-5", func(d *deploy.Deployment) bool { return d.Deliveries[0].State == deploy.DeliveryDelivered })
	reqs := r.requests()
	last := reqs[len(reqs)-1]
	if last.ID != first[0].ID || string(last.Body) != string(first[0].Body) || !last.verifies(receiverKey) {
		t.Errorf("replay %s %s, first %s", last.ID, last.Body, first[0].ID)
	}
	if d.Deliveries[0].Attempts != len(reqs) {
		t.Errorf("attempts %d, requests %d", d.Deliveries[0].Attempts, len(reqs))
	}
	if _, err := e.eng.Service.ReplayCallbacks(e.ctx, "cb-5", dead.ID, false); deploy.ErrorCode(err) != deploy.ECONFLICT {
		t.Errorf("replay of a delivered one: %v", err)
	}
	// Another tenant's deployer neither sees the deploy nor replays its
	// callbacks: the answer is a missing deploy's; a reader may not replay.
	for who, code := range map[string]deploy.Code{"token:mallory": deploy.ENOTFOUND, "token:viewer": deploy.EFORBIDDEN} {
		if _, err := e.eng.Service.ReplayCallbacks(e.as(who), "cb-5", "", false); deploy.ErrorCode(err) != code {
			t.Errorf("replay as %s: %v, want %s", who, err, code)
		}
	}
	if _, err := e.eng.Service.ReplayCallbacks(e.as("token:mallory"), "cb-missing", "", false); deploy.ErrorCode(err) != deploy.ENOTFOUND {
		t.Errorf("replay of a missing deploy: %v", err)
	}
	if got := e.auditActors("callbacks.replay", "cb-5"); len(got) != 1 || got[0] != "token:ci" {
		t.Errorf("callbacks.replay entries by %v", got)
	}
	if got := e.auditActors("callbacks.replay.refused", "cb-5"); !slices.Contains(got, "token:viewer") {
		t.Errorf("callbacks.replay.refused entries by %v", got)
	}
}

// Callbacks the policy refuses are refused at submission, on their paths.
func TestCallbacksRefusedAtSubmission(t *testing.T) {
	e := callbackEnv(t, "")
	doc := descriptorFor("cb-6", "app", "staging") + "callbacks:\n  - url: https://hooks.example.com/\n  - url: http://169.254.169.254/latest\n  - url: http://127.0.0.1:8080/ok\n"
	_, err := e.eng.Submit(e.ctx, []byte(doc), deploy.SubmitOptions{})
	var de *deploy.Error
	if !errors.As(err, &de) || de.Code != deploy.EUNPROCESSABLE || len(de.Fields) != 2 ||
		de.Fields[0].Path != "callbacks[0].url" || de.Fields[1].Path != "callbacks[1].url" {
		t.Fatalf("submission: %v (%+v)", err, de)
	}
	if _, err := e.store.Get(e.ctx, "cb-6"); deploy.ErrorCode(err) != deploy.ENOTFOUND {
		t.Errorf("a refused deploy was stored: %v", err)
	}
}

// docSnippet is the code block of docs/callbacks.md in lang.
func docSnippet(t *testing.T, lang string) string {
	t.Helper()
	text, err := os.ReadFile("../docs/callbacks.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(string(text))
	if m == nil {
		t.Fatalf("docs/callbacks.md has no %s block", lang)
	}
	return m[1]
}

// The signature snippets of docs/callbacks.md verify a real delivery, and
// refuse it once its body is changed: Go's is the test's own verify, Node's
// and Python's run in their interpreters.
func TestCallbackSnippets(t *testing.T) {
	e := callbackEnv(t, "")
	r := newReceiver(t, nil)
	e.submitWithCallbacks("cb-doc", "  - {url: "+r.url("/")+", events: [finished]}\n")
	e.waitDeliveries("cb-doc", 1)
	got := r.requests()[0]
	src, err := os.ReadFile("callbacks_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), docSnippet(t, "go")) {
		t.Errorf("the Go snippet of docs/callbacks.md is not the verify of this test")
	}
	if !got.verifies(receiverKey) {
		t.Errorf("the Go snippet refuses a real delivery")
	}
	tampered := got
	tampered.Body = append([]byte(nil), got.Body...)
	tampered.Body[len(tampered.Body)-2] ^= 1
	if tampered.verifies(receiverKey) {
		t.Errorf("the Go snippet accepts a changed body")
	}
	dir := t.TempDir()
	run := func(t *testing.T, interpreter, code string, d delivered) bool {
		t.Helper()
		body := filepath.Join(dir, "body")
		if err := os.WriteFile(body, d.Body, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(interpreter, "-c", code)
		if interpreter == "node" {
			cmd = exec.Command(interpreter, "-e", code)
		}
		cmd.Env = append(os.Environ(), "S="+receiverKey, "I="+d.ID, "T="+d.Timestamp, "H="+d.Signature, "B="+body)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("%s: %v", interpreter, err)
		}
		if err != nil && exit.ExitCode() != 1 {
			t.Fatalf("%s failed: %v\n%s", interpreter, err, out)
		}
		return err == nil
	}
	for _, tt := range []struct{ interpreter, lang, call string }{
		{"node", "js", `process.exit(verify(process.env.S, process.env.I, process.env.T, require("fs").readFileSync(process.env.B), process.env.H) ? 0 : 1)`},
		{"python3", "python", `import os, sys
sys.exit(0 if verify(os.environ["S"], os.environ["I"], os.environ["T"], open(os.environ["B"], "rb").read(), os.environ["H"]) else 1)`},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			if _, err := exec.LookPath(tt.interpreter); err != nil {
				// make test installs python3 (and Node.js is needed to
				// build at all): a missing one fails, so CI never passes
				// without checking the snippet.
				if os.Getenv("MANENT_ALLOW_SKIP_PYTHON") == "1" {
					t.Skipf("%s is not installed here (MANENT_ALLOW_SKIP_PYTHON=1)", tt.interpreter)
				}
				t.Fatalf("%s is not installed here: make test installs it, or set MANENT_ALLOW_SKIP_PYTHON=1", tt.interpreter)
			}
			code := docSnippet(t, tt.lang) + "\n" + tt.call
			if !run(t, tt.interpreter, code, got) {
				t.Errorf("the %s snippet refuses a real delivery", tt.lang)
			}
			if run(t, tt.interpreter, code, tampered) {
				t.Errorf("the %s snippet accepts a changed body", tt.lang)
			}
		})
	}
}

// A rollout's own operations (a wave's bake) and its batches are step
// events too, each once, named as the status names them.
func TestCallbacksOfARollout(t *testing.T) {
	e := callbackEnv(t, "")
	writeRelease(t, e.dir, "1.0.0")
	dirs := []string{filepath.Join(e.dir, "targets/cb/a"), filepath.Join(e.dir, "targets/cb/b")}
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/web/cb.yml"), fmt.Sprintf(`plugin: local
targets: [{path: %q}, {path: %q}]
rollout:
  waves: [{name: one, count: 1, bake: 10ms}, {name: two}]
`, dirs[0], dirs[1]))
	r := newReceiver(t, nil)
	doc := webDescriptor("cb-waves", "cb", "1.0.0", "callbacks:\n  - {url: "+r.url("/")+", events: [step]}\n")
	if _, err := e.eng.Submit(e.ctx, []byte(doc), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	d := e.waitDeliveries("cb-waves", 1)
	if d.State != deploy.StateSuccess {
		t.Fatalf("deploy %s: %s", d.State, d.Error)
	}
	var names []string
	for _, s := range deploy.NewStatus(d).Steps {
		if s.Kind != deploy.KindCheckpoint {
			names = append(names, s.Name)
		}
	}
	d = e.waitDeliveries("cb-waves", len(names))
	got := map[string]bool{}
	for _, dl := range d.Deliveries {
		if got[dl.Step] {
			t.Errorf("step %s delivered twice", dl.Step)
		}
		got[dl.Step] = true
	}
	for _, n := range names {
		if !got[n] {
			t.Errorf("no step event of %s (got %v)", n, got)
		}
	}
	if !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "bake") }) {
		t.Errorf("no bake among the steps %v", names)
	}
}

// A delivery waiting for its next attempt holds no slot of the event
// queue: with one slot, a receiver that is down does not hold up another
// deploy's callbacks.
func TestCallbacksRetryingHoldNoSlot(t *testing.T) {
	e := callbackEnv(t, "  concurrency: 1\n  first_retry: 1h\n")
	down := newReceiver(t, nil)
	down.stop()
	up := newReceiver(t, nil)
	e.submitWithCallbacks("cb-down", "  - {url: "+down.url("/")+", events: [started]}\n")
	e.wait("cb-down", func(d *deploy.Deployment) bool {
		return len(d.Deliveries) == 1 && d.Deliveries[0].State == deploy.DeliveryRetrying
	})
	e.submitWithCallbacks("cb-up", "  - {url: "+up.url("/")+", events: [started]}\n")
	d := e.waitDeliveries("cb-up", 1)
	if d.Deliveries[0].State != deploy.DeliveryDelivered {
		t.Errorf("delivery %+v", d.Deliveries[0])
	}
}

// A deploy that ends before it starts sends its finished event, written
// with its end by the store: a cancel while it waits, a rejection.
func TestCallbacksOfADeployThatNeverStarted(t *testing.T) {
	e := callbackEnvWith(t, envOptions{governor: prodNeeds(1, time.Hour)}, "")
	r := newReceiver(t, nil)
	for _, tt := range []struct {
		id   string
		end  func(id string) error
		want deploy.State
	}{
		{"cb-cancelled", func(id string) error { _, err := e.eng.Cancel(as(e, "token:admin"), id); return err }, deploy.StateCancelled},
		{"cb-rejected", func(id string) error { _, err := e.eng.Reject(as(e, "token:ops1"), id, "not today"); return err }, deploy.StateRejected},
	} {
		t.Run(string(tt.want), func(t *testing.T) {
			doc := descriptorFor(tt.id, "app", "prod") + "callbacks:\n  - url: " + r.url("/"+tt.id) + "\n"
			if _, err := e.eng.Submit(e.ctx, []byte(doc), deploy.SubmitOptions{}); err != nil {
				t.Fatal(err)
			}
			e.waitState(tt.id, deploy.StateAwaitingApproval)
			if err := tt.end(tt.id); err != nil {
				t.Fatal(err)
			}
			d := e.waitDeliveries(tt.id, 1)
			if d.State != tt.want || len(d.Deliveries) != 1 || d.Deliveries[0].EventID != tt.id+":event:finished" ||
				d.Deliveries[0].State != deploy.DeliveryDelivered {
				t.Fatalf("deploy %s, deliveries %+v", d.State, d.Deliveries)
			}
			var body struct {
				Data struct {
					State deploy.State `json:"state"`
				} `json:"data"`
			}
			for _, req := range r.requests() {
				if req.ID == tt.id+":event:finished" && (json.Unmarshal(req.Body, &body) != nil || body.Data.State != tt.want) {
					t.Errorf("finished payload %s", req.Body)
				}
			}
		})
	}
}

// A callback gets at most callbacks.max_step_events step events of a
// deploy: the first one beyond is recorded dead, saying why, and nothing
// more is sent or recorded; started and finished are not bounded.
func TestCallbacksBoundStepEvents(t *testing.T) {
	e := callbackEnv(t, "  max_step_events: 2\n")
	r := newReceiver(t, nil)
	e.submitWithCallbacks("cb-cap", "  - {url: "+r.url("/")+"}\n")
	d := e.waitDeliveries("cb-cap", 5)
	if d.State != deploy.StateSuccess {
		t.Fatalf("deploy %s: %s", d.State, d.Error)
	}
	byState := map[deploy.DeliveryState][]deploy.Delivery{}
	steps := 0
	for _, dl := range d.Deliveries {
		byState[dl.State] = append(byState[dl.State], dl)
		if dl.EventType == deploy.NoticeStep {
			steps++
		}
	}
	if steps != 3 || len(byState[deploy.DeliveryDelivered]) != 4 || len(byState[deploy.DeliveryDead]) != 1 {
		t.Fatalf("%d step deliveries, by state %v; want 2 step events delivered, one note, started and finished", steps, byState)
	}
	if note := byState[deploy.DeliveryDead][0]; note.EventType != deploy.NoticeStep || note.Attempts != 0 ||
		!strings.Contains(note.LastError, "callbacks.max_step_events") {
		t.Errorf("note %+v", note)
	}
	if n := len(r.requests()); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
}
