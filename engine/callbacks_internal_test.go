package engine

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// The waits between attempts follow the documented schedule (5s, 5m, 30m,
// 2h, 5h, then 10h) within ±20 %, at both ends of the jitter.
func TestRetryWait(t *testing.T) {
	want := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
		10 * time.Hour, 10 * time.Hour, 10 * time.Hour}
	for i, base := range want {
		n := i + 1
		for _, tt := range []struct {
			jitter float64
			want   time.Duration
		}{{0, base * 8 / 10}, {0.5, base}, {1, base * 12 / 10}} {
			if got := retryWait(5*time.Second, n, tt.jitter); got != tt.want {
				t.Errorf("wait after attempt %d, jitter %v: %s, want %s", n, tt.jitter, got, tt.want)
			}
		}
	}
	if got := retryWait(20*time.Millisecond, 2, 0.5); got != 1200*time.Millisecond {
		t.Errorf("first_retry 20ms, second wait %s", got)
	}
}

// Sign is Standard Webhooks' signature: the example of its specification.
func TestSignMatchesTheSpecification(t *testing.T) {
	key := SigningKey("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	got := Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	if string(SigningKey("not-a-whsec")) != "not-a-whsec" {
		t.Errorf("a raw key is its own bytes")
	}
}

// What leaves manent holds neither the outputs of custom steps nor the
// exports taken from them; standard steps' outputs stay.
func TestOutwardStatusHidesCustomOutputs(t *testing.T) {
	d := &deploy.Deployment{ID: "o-1",
		Plan: deploy.Plan{Steps: []deploy.PlannedStep{
			{Name: "deploy", Type: deploy.StepTypeStandard}, {Name: "hook", Type: deploy.StepTypeHTTP},
			{Name: "migrate", Type: deploy.StepTypeCommand}}},
		Steps: []deploy.Step{
			{Name: "deploy", Position: 0, Type: deploy.StepTypeStandard, Kind: deploy.KindRun, State: deploy.StepSuccess, Output: map[string]string{"url": "u"}},
			{Name: "hook", Position: 1, Type: deploy.StepTypeHTTP, Kind: deploy.KindRun, State: deploy.StepSuccess, Output: map[string]string{"token": "t0p"}},
			{Name: "migrate", Position: 2, Type: deploy.StepTypeCommand, Kind: deploy.KindRun, State: deploy.StepSuccess, Output: map[string]string{"n": "3"}},
		},
		Descriptor: deploy.Descriptor{
			Exports:   map[string]deploy.ExportSpec{"url": {From: "deploy.url"}, "token": {From: "hook.token"}},
			Callbacks: []deploy.Callback{{URL: "https://h.example.com/"}},
		},
		Exports:    []deploy.Export{{Name: "url", Value: "u"}, {Name: "token", Value: "t0p"}},
		Deliveries: []deploy.Delivery{},
	}
	st := outward(d)
	text, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), "t0p") || strings.Contains(string(text), `"n":"3"`) || st.Callbacks != nil {
		t.Errorf("outward status %s", text)
	}
	if st.Exports["url"] != "u" || st.Steps[0].Output["url"] != "u" {
		t.Errorf("standard outputs and exports lost: %s", text)
	}
}

// Every key of callbacks.signing_key_refs signs, space-separated: a
// receiver that knows any one of them verifies the delivery.
func TestSignAllSignsWithEveryKey(t *testing.T) {
	keys := [][]byte{[]byte("old"), []byte("new"), []byte("next")}
	got := strings.Fields(SignAll(keys, "id-1", "1614265330", []byte("{}")))
	if len(got) != len(keys) {
		t.Fatalf("%d signatures, want %d: %v", len(got), len(keys), got)
	}
	for i, k := range keys {
		if want := Sign(k, "id-1", "1614265330", []byte("{}")); got[i] != want {
			t.Errorf("signature %d %s, want %s", i, got[i], want)
		}
	}
}

// What kept an attempt from an answer is a fixed phrase: Go's errors name
// the addresses a host resolved to.
func TestNetworkProblemNamesNoAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	_ = ln.Close()
	_, refused := net.Dial("tcp", closed)
	_, unresolved := net.Dial("tcp", "no-such-host.invalid:443")
	for _, tt := range []struct {
		err  error
		want string
	}{
		{refused, "the receiver refused the connection"},
		{unresolved, "the receiver's host name does not resolve"},
		{context.DeadlineExceeded, "no answer within 2s (callbacks.timeout; connecting within 2s)"},
	} {
		if tt.err == nil {
			t.Fatalf("no error to describe for %q", tt.want)
		}
		got := networkProblem(tt.err, 2*time.Second)
		if got != tt.want || strings.Contains(got, "127.0.0.1") {
			t.Errorf("networkProblem(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
