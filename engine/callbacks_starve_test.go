package engine_test

import (
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// tarpit is a receiver that accepts connections and never answers; it
// counts the connections open at once.
type tarpit struct {
	ln       net.Listener
	mu       sync.Mutex
	conns    []net.Conn
	open     int
	maxOpen  int
	closed   int
	accepted chan struct{}
}

func newTarpit(t *testing.T) *tarpit {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tp := &tarpit{ln: ln, accepted: make(chan struct{}, 1024)}
	t.Cleanup(func() {
		_ = ln.Close()
		tp.mu.Lock()
		defer tp.mu.Unlock()
		for _, c := range tp.conns {
			_ = c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tp.mu.Lock()
			tp.conns = append(tp.conns, c)
			tp.open++
			tp.maxOpen = max(tp.maxOpen, tp.open)
			tp.mu.Unlock()
			tp.accepted <- struct{}{}
			go func() { // reads until the client gives up
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						break
					}
				}
				tp.mu.Lock()
				tp.open--
				tp.closed++
				tp.mu.Unlock()
			}()
		}
	}()
	return tp
}

func (tp *tarpit) counts() (maxOpen, closed int) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return tp.maxOpen, tp.closed
}

// TestCallbacksSlowReceiverStarvesOthers: one tenant's receiver that
// accepts and never answers holds at most callbacks.concurrency_per_tenant
// of the callbacks' slots, and the events of another tenant's deploys are
// delivered meanwhile, their snapshots taken on a queue of their own.
// Before, one queue (manent.event, no partition) held every tenant's
// snapshots, callback attempts and chat messages, and such a receiver
// took every slot for callbacks.timeout per attempt.
func TestCallbacksSlowReceiverStarvesOthers(t *testing.T) {
	// A timeout far above what the other deploy needs: its delivery must
	// be done before any attempt to the tarpit ends.
	e := callbackEnv(t, "  concurrency: 4\n  concurrency_per_tenant: 2\n  timeout: 1m\n  first_retry: 10ms\n")
	tp := newTarpit(t)
	var cbs strings.Builder
	for i := range 10 {
		cbs.WriteString("  - {url: http://" + tp.ln.Addr().String() + "/" + strconv.Itoa(i) + "}\n")
	}
	e.configure("acme", "app/staging")
	doc := descriptorIn("acme", "cb-tarpit", "app", "staging") + "callbacks:\n" + cbs.String()
	if _, err := e.eng.Submit(e.as("token:mallory"), []byte(doc), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	// The tarpit holds its tenant's two slots.
	<-tp.accepted
	<-tp.accepted
	up := newReceiver(t, nil)
	e.submitWithCallbacks("cb-victim", "  - {url: "+up.url("/")+", events: [started, finished]}\n")
	d := e.waitDeliveries("cb-victim", 2)
	for _, dl := range d.Deliveries {
		if dl.State != deploy.DeliveryDelivered {
			t.Errorf("delivery %s of the other tenant's deploy: %s (%s)", dl.ID, dl.State, dl.LastError)
		}
	}
	maxOpen, closed := tp.counts()
	if closed > 0 {
		t.Errorf("another tenant's events waited for %d attempts to the tarpit to time out", closed)
	}
	if maxOpen > 2 {
		t.Errorf("the tarpit held %d connections at once, above callbacks.concurrency_per_tenant (2)", maxOpen)
	}
}

// TestChatNeverWaitsBehindCallbacks: while a tenant's receiver that never
// answers holds every callback slot of the tenant, and of the worker, the
// events' snapshots and the chat messages (approval requests among them)
// go on, on queues of their own. Before, they shared manent.event with the
// callbacks and waited for the attempts to time out.
func TestChatNeverWaitsBehindCallbacks(t *testing.T) {
	chat := newFakeChat()
	e := callbackEnvWith(t, envOptions{chat: chat}, "  concurrency: 2\n  concurrency_per_tenant: 2\n  timeout: 1m\n")
	tp := newTarpit(t)
	var cbs strings.Builder
	for i := range 10 {
		cbs.WriteString("  - {url: http://" + tp.ln.Addr().String() + "/" + strconv.Itoa(i) + "}\n")
	}
	e.submitWithCallbacks("chat-tarpit", cbs.String())
	<-tp.accepted
	<-tp.accepted
	e.submit("chat-victim", "app", "staging")
	timeout := time.After(90 * time.Second)
	for done := false; !done; {
		select {
		case p := <-chat.got:
			done = p.n.ID == "chat-victim:event:finished"
		case <-timeout:
			t.Fatal("the other deploy's finished message was never posted")
		}
	}
	if _, closed := tp.counts(); closed > 0 {
		t.Errorf("the chat messages waited for %d attempts to the tarpit to time out", closed)
	}
}
