package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph"
	"manent.dev/manent/internal/postgres"
)

// activityFeed is the web interface's activity subscription, fragment
// included: the shape a wall of screens asks for.
const activityFeed = `subscription ActivityFeed { activity { kind deployment {
  id tenant application environment state requester createdAt startedAt finishedAt updatedAt startAt dryRun
  artifact { name version } currentStep error plan { steps { name maxRetries } }
  steps { name state kind position attempts } } } }`

// BenchmarkLiveFanOut connects 200 and 1,000 websocket subscribers
// (graphql-transport-ws, gorilla) of the activity feed to the GraphQL
// endpoint on a real HTTP server, makes one state change of a deploy
// (store.Transition: the UPDATE and its NOTIFY in one transaction), and
// times its delivery to every subscriber, from just before the change to
// the moment each one has read its message. At every iteration it does so
// twice, alternating which goes first, each on a server of its own
// (its own LISTEN connection) over one service and database:
//
//	before  every subscriber reads the deploy through the Service
//	        (graph.Live without a Hub: a full Get per subscriber)
//	after   one read shared by all subscribers (graph.Hub), each
//	        authorized in memory on it (service.View)
//
// The subscribers run in the benchmark's process, on the same 2 cores as
// the server: their reads of 1,000 messages are in the figures. Metrics are
// medians over the iterations of each iteration's percentiles:
//
//	before-p50-ms, before-p99-ms   delivery to every subscriber, before
//	after-p50-ms, after-p99-ms     the same, after
//	p99-ratio                      after-p99-ms ÷ before-p99-ms
//	before-reads, after-reads      deploy reads for the change (Get of a
//	                               subscriber, or the Hub's shared read)
//
// ns/op is zeroed: an iteration is two workloads, its time means nothing.
func BenchmarkLiveFanOut(b *testing.B) {
	raiseFileLimit(b)
	for _, n := range []int{200, 1000} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) { benchFanOut(b, n) })
	}
}

func benchFanOut(b *testing.B, subscribers int) {
	m := newManent(b, setup{environments: 1})
	var before, after []fanOut
	for b.Loop() {
		n := len(before)
		sides := []bool{false, true}
		if n%2 == 1 {
			slices.Reverse(sides)
		}
		for _, shared := range sides {
			f := m.fanOut(b, fmt.Sprintf("live-%d-%t", n, shared), subscribers, shared)
			if shared {
				after = append(after, f)
			} else {
				before = append(before, f)
			}
		}
	}
	pick := func(fs []fanOut, f func(fanOut) time.Duration) time.Duration {
		ds := make([]time.Duration, len(fs))
		for i, x := range fs {
			ds[i] = f(x)
		}
		return median(ds)
	}
	p50 := func(f fanOut) time.Duration { return f.p50 }
	p99 := func(f fanOut) time.Duration { return f.p99 }
	readsOf := func(f fanOut) time.Duration { return time.Duration(f.reads) }
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(ms(pick(before, p50)), "before-p50-ms")
	b.ReportMetric(ms(pick(before, p99)), "before-p99-ms")
	b.ReportMetric(ms(pick(after, p50)), "after-p50-ms")
	b.ReportMetric(ms(pick(after, p99)), "after-p99-ms")
	b.ReportMetric(float64(pick(after, p99))/float64(pick(before, p99)), "p99-ratio")
	b.ReportMetric(float64(pick(before, readsOf)), "before-reads")
	b.ReportMetric(float64(pick(after, readsOf)), "after-reads")
}

// fanOut is one state change delivered to every subscriber.
type fanOut struct {
	p50, p99 time.Duration
	reads    int64
}

// fanOut connects subscribers to a fresh server, changes deploy id once
// they all listen, and measures the delivery; the server and its
// subscriptions are gone when it returns.
func (m *manent) fanOut(b *testing.B, id string, subscribers int, shared bool) fanOut {
	b.Helper()
	if _, err := m.eng.Submit(m.ctx, descriptorFor(id, envName(0)), deploy.SubmitOptions{}); err != nil {
		b.Fatal(err)
	}
	baseline := runtime.NumGoroutine()
	events := postgres.NewEvents(m.url, quietLogger())
	ctx, cancel := context.WithTimeout(m.ctx, time.Minute)
	defer cancel()
	if err := events.Ready(ctx); err != nil {
		b.Fatal(err)
	}
	counter := &countingService{SharedReader: m.eng, id: id}
	resolver := &graph.Resolver{Service: countingGet{m.eng, counter}, Events: events, Logger: quietLogger()}
	var hub *graph.Hub
	if shared {
		hub = graph.NewHub(counter, events, quietLogger())
		resolver.Hub = hub
	}
	h := graph.NewHandler(graph.HandlerOptions{
		Resolver:    resolver,
		CheckOrigin: func(*http.Request) bool { return true },
		InitFunc: func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			if p.GetString("token") != "bench" {
				return ctx, nil, errors.New("unauthenticated")
			}
			return deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:bench"}), nil, nil
		},
		Logger: quietLogger(),
	})
	srv := httptest.NewServer(h)
	conns := connect(b, srv.URL, subscribers)
	// Activity sends nothing when it starts: a warm-up change of another
	// deploy tells when every subscription listens.
	warm := id + "-warm"
	if _, err := m.eng.Submit(m.ctx, descriptorFor(warm, envName(0)), deploy.SubmitOptions{}); err != nil {
		b.Fatal(err)
	}
	// Once a second: one change reaches all of them well within that.
	until(b, conns, warm, time.Second, func() {
		if _, err := m.store.Transition(m.ctx, warm, deploy.StatePending, nil); err != nil {
			b.Fatal(err)
		}
	})
	start := time.Now()
	arrivals := until(b, conns, id, 0, func() {
		if _, err := m.store.Transition(m.ctx, id, deploy.StatePending, nil); err != nil {
			b.Fatal(err)
		}
	})
	reads := counter.count()
	ds := make([]time.Duration, len(arrivals))
	for i, at := range arrivals {
		ds[i] = at.Sub(start)
	}
	slices.Sort(ds)

	for _, c := range conns {
		_ = c.Close()
	}
	srv.CloseClientConnections()
	srv.Close()
	if hub != nil {
		hub.Close()
	}
	events.Close()
	// The next side runs alone: wait until this one's goroutines have ended.
	for deadline := time.Now().Add(time.Minute); runtime.NumGoroutine() > baseline+20; {
		if time.Now().After(deadline) {
			b.Fatalf("%d goroutines left of %d", runtime.NumGoroutine(), baseline)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fanOut{p50: ds[len(ds)/2], p99: ds[len(ds)*99/100], reads: reads}
}

// connect opens n subscriptions of the activity feed, a few at a time as
// screens coming up would.
func connect(b *testing.B, url string, n int) []*websocket.Conn {
	b.Helper()
	conns := make([]*websocket.Conn, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	slots := make(chan struct{}, 32)
	for i := range n {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			c, err := subscribe(url)
			if err != nil {
				errs <- err
				return
			}
			conns[i] = c
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		for _, c := range conns {
			if c != nil {
				_ = c.Close()
			}
		}
		b.Fatal(err)
	}
	return conns
}

func subscribe(url string) (*websocket.Conn, error) {
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: time.Minute}
	c, resp, err := d.Dial("ws"+strings.TrimPrefix(url, "http"), nil)
	if resp != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	send := func(v any) error { return c.WriteJSON(v) }
	if err := send(map[string]any{"type": "connection_init", "payload": map[string]string{"token": "bench"}}); err != nil {
		return nil, err
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	var ack struct{ Type string }
	if err := c.ReadJSON(&ack); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("connection_init: %w", err)
	}
	if ack.Type != "connection_ack" {
		_ = c.Close()
		return nil, fmt.Errorf("connection_init: answered %q", ack.Type)
	}
	err = send(map[string]any{"type": "subscribe", "id": "1", "payload": map[string]string{"query": activityFeed}})
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// until calls change, again every interval if it is not zero, until every
// connection has read an update of deploy id in state PENDING, and returns
// when each read it.
func until(b *testing.B, conns []*websocket.Conn, id string, interval time.Duration, change func()) []time.Time {
	b.Helper()
	arrivals := make([]time.Time, len(conns))
	errs := make(chan error, len(conns))
	var wg sync.WaitGroup
	want := []byte(fmt.Sprintf(`"id":%q`, id))
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Minute))
			for {
				_, msg, err := c.ReadMessage()
				if err != nil {
					errs <- fmt.Errorf("subscriber %d: %w", i, err)
					return
				}
				if bytes.Contains(msg, want) && bytes.Contains(msg, []byte(`"PENDING"`)) {
					arrivals[i] = time.Now()
					return
				}
				if bytes.Contains(msg, []byte(`"error"`)) && !bytes.Contains(msg, []byte(`"next"`)) {
					errs <- fmt.Errorf("subscriber %d: %s", i, msg)
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	change()
	var again <-chan time.Time
	if interval > 0 {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		again = tick.C
	}
	for {
		select {
		case <-done:
			select {
			case err := <-errs:
				b.Fatal(err)
			default:
			}
			return arrivals
		case err := <-errs:
			b.Fatal(err)
		case <-again:
			change()
		}
	}
}

// countingService counts the deploy reads of the fan-out: the shared ones
// (the Hub's), and through countingGet the subscribers' own.
type countingService struct {
	graph.SharedReader
	// id is the deploy whose reads count.
	id    string
	mu    sync.Mutex
	reads int64
}

func (c *countingService) add(id string) {
	if id != c.id {
		return
	}
	c.mu.Lock()
	c.reads++
	c.mu.Unlock()
}

func (c *countingService) count() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads
}

func (c *countingService) ReadShared(ctx context.Context, id string) (*deploy.Deployment, error) {
	c.add(id)
	return c.SharedReader.ReadShared(ctx, id)
}

type countingGet struct {
	deploy.Service
	counter *countingService
}

func (c countingGet) Get(ctx context.Context, id string) (*deploy.Deployment, error) {
	c.counter.add(id)
	return c.Service.Get(ctx, id)
}

// raiseFileLimit lifts the soft limit of open files to the hard one: a
// thousand subscribers in this process hold two sockets each.
func raiseFileLimit(b *testing.B) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		b.Fatal(err)
	}
	if l.Cur < l.Max {
		l.Cur = l.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
			b.Fatal(err)
		}
	}
	if l.Cur < 4*1000+256 {
		b.Logf("open files limited to %d: 1,000 subscribers may not connect", l.Cur)
	}
}
