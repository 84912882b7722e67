package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// e2eCallbackKey signs the rig's callbacks (a Standard Webhooks secret).
const e2eCallbackKey = "whsec_ZTJlLWNhbGxiYWNrLWtleS0wMTIzNDU2Nzg5"

// hook is one request a loopback receiver got.
type hook struct {
	id, timestamp, signature string
	body                     []byte
}

// signed reports whether the request carries the signature of docs/callbacks.md.
func (h hook) signed() bool {
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(e2eCallbackKey, "whsec_"))
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(h.id + "." + h.timestamp + "."))
	mac.Write(h.body)
	return h.signature == "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// hookReceiver answers 503 until up, then 204, and records every request.
type hookReceiver struct {
	mu   sync.Mutex
	up   bool
	got  []hook
	addr string
}

func newHookReceiver(t *testing.T) *hookReceiver {
	t.Helper()
	h := &hookReceiver{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.addr = ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.got = append(h.got, hook{id: r.Header.Get("webhook-id"), timestamp: r.Header.Get("webhook-timestamp"),
			signature: r.Header.Get("webhook-signature"), body: body})
		up := h.up
		h.mu.Unlock()
		if !up {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return h
}

func (h *hookReceiver) setUp() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.up = true
}

func (h *hookReceiver) requests() []hook {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hook(nil), h.got...)
}

// callbackView is the callbacks section of the status JSON.
type callbackView struct {
	URL        string `json:"url"`
	State      string `json:"state"`
	Deliveries []struct {
		ID      string `json:"id"`
		EventID string `json:"event_id"`
		State   string `json:"state"`
	} `json:"deliveries"`
}

// callbacksOf reads the callbacks of a deploy's status until ok says they
// are where the test wants them.
func (r *rig) callbacksOf(id string, ok func([]callbackView) bool) []callbackView {
	r.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for tick := time.NewTicker(20 * time.Millisecond); ; <-tick.C {
		body, code := r.get("/api/v1/deployments/" + id)
		var st struct {
			Callbacks []callbackView `json:"callbacks"`
		}
		if code != http.StatusOK || json.Unmarshal(body, &st) != nil {
			r.t.Fatalf("status of %s: %d %s", id, code, body)
		}
		if ok(st.Callbacks) {
			tick.Stop()
			return st.Callbacks
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("callbacks of %s never got there: %+v\nserver:\n%s", id, st.Callbacks, r.srv.output())
		}
	}
}

// A deploy's callback that the receiver refused past the retry window is
// a dead letter in the status; manent callbacks replay sends it again
// with the same webhook-id, for whoever may cancel the deploy and for
// nobody else. A callback the policy refuses refuses the deploy (exit 2).
func TestCallbacksDeadLetterReplayedByTheCLI(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy"}, maxRecovery: 3, extra: `callbacks:
  allowed: ["http://127.0.0.1:"]
  allow_http: true
  signing_key_refs: ["file:callback-key"]
  retry_window: 1s
  first_retry: 20ms
`})
	write(t, filepath.Join(r.dir, "callback-key"), e2eCallbackKey+"\n")
	r.srv.start()
	r.artifact("1.0.0")
	r.env("staging", "plugin: local\ntargets: [{path: targets/staging}]\n")
	h := newHookReceiver(t)
	r.deployFollowed(r.descriptor("cb-e2e", "staging", "1.0.0",
		"callbacks:\n  - {url: 'http://"+h.addr+"/hook?token=sekrit', events: [finished]}\n"))
	cbs := r.callbacksOf("cb-e2e", func(c []callbackView) bool { return len(c) == 1 && c[0].State == "dead" })
	if cbs[0].URL != "http://"+h.addr+"/hook" || len(cbs[0].Deliveries) != 1 {
		t.Fatalf("callbacks %+v", cbs)
	}
	first := h.requests()
	if len(first) < 2 || first[0].id != "cb-e2e:event:finished" || !first[0].signed() {
		t.Fatalf("deliveries before the dead letter: %+v", first)
	}

	for _, tok := range []string{tokenOutsider, tokenAcme} {
		if _, errOut, code := r.manent(tok, "callbacks", "replay", "cb-e2e"); code != 2 || !strings.Contains(errOut, "not found") {
			t.Errorf("replay as %s: exit %d, %s", tok, code, errOut)
		}
	}
	h.setUp()
	out, errOut, code := r.manent(tokenCI, "callbacks", "replay", "cb-e2e", "-o", "json")
	if code != 0 || !strings.Contains(out, cbs[0].Deliveries[0].ID) {
		t.Fatalf("manent callbacks replay: exit %d\n%s\n%s", code, out, errOut)
	}
	r.callbacksOf("cb-e2e", func(c []callbackView) bool { return c[0].State == "delivered" })
	reqs := h.requests()
	last := reqs[len(reqs)-1]
	if last.id != first[0].id || string(last.body) != string(first[0].body) || !last.signed() {
		t.Errorf("replayed %s (signed %v), first %s", last.id, last.signed(), first[0].id)
	}
	if _, errOut, code := r.manent(tokenCI, "callbacks", "replay", "cb-e2e"); code != 2 {
		t.Errorf("a replay with nothing dead: exit %d, %s", code, errOut)
	}

	for _, url := range []string{"https://hooks.example.com/", "http://169.254.169.254/latest/meta-data"} {
		path := r.descriptor("cb-refused", "staging", "1.0.0", "callbacks:\n  - url: "+url+"\n")
		_, errOut, code := r.manent(tokenCI, "deploy", "-f", path, "--no-wait")
		if code != 2 || !strings.Contains(errOut, "callbacks[0].url") {
			t.Errorf("deploy with a callback to %s: exit %d\n%s", url, code, errOut)
		}
	}
	if body, status := r.postAs(tokenCI, "/api/v1/deployments", "application/yaml", []byte(`apiVersion: manent/v1
id: cb-refused-rest
application: hello
environment: staging
artifact: {type: application, name: hello, version: 1.0.0, source: "file:hello-1.0.0.tar.gz"}
callbacks: [{url: "https://hooks.example.com/"}]
`)); status != http.StatusUnprocessableEntity || !strings.Contains(string(body), "callbacks[0].url") {
		t.Errorf("POST with a refused callback: %d %s", status, body)
	}
}
