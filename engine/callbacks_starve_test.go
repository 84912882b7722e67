package engine_test

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// TestCallbacksSlowReceiverStarvesOthers (rev13, FAILS on a33e1c1): one
// queue (manent.event, callbacks.concurrency per worker, no partition)
// holds every tenant's event snapshots, callback attempts and chat
// messages. A receiver that accepts and never answers holds a slot for
// callbacks.timeout per attempt, and each timeout is retried: one deploy
// with 10 such callbacks delays the events of every other deploy.
func TestCallbacksSlowReceiverStarvesOthers(t *testing.T) {
	e := callbackEnv(t, "  concurrency: 2\n  timeout: 2s\n  first_retry: 10ms\n")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() { // a tarpit: accepts, never answers
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() })
		}
	}()
	var cbs strings.Builder
	for i := range 10 {
		cbs.WriteString("  - {url: http://" + ln.Addr().String() + "/" + strconv.Itoa(i) + "}\n")
	}
	e.submitWithCallbacks("cb-tarpit", cbs.String())
	e.wait("cb-tarpit", func(d *deploy.Deployment) bool { return len(d.Deliveries) >= 10 })
	up := newReceiver(t, nil)
	start := time.Now()
	e.submitWithCallbacks("cb-victim", "  - {url: "+up.url("/")+", events: [started]}\n")
	e.waitDeliveries("cb-victim", 1)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("another deploy's started event waited %s behind a tarpit receiver", took.Round(time.Second))
	}
}
