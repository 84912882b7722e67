package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestPollingFollowsTheWorkers: DBOS keeps one polling interval per queue
// for every process, so it is the queue's own (queues.poll_interval, or
// event_poll_interval for the events') × the live workers: a second worker
// halves each one's polls, and when it stops the first polls at the
// queue's own interval again.
func TestPollingFollowsTheWorkers(t *testing.T) {
	const engineYAML = "engine: {heartbeat_interval: 200ms, executor_timeout: 1m}"
	a := newEnvWith(t, envOptions{executorID: "poll-a", engineYAML: engineYAML})
	waitPolling(t, a.url, 1)
	b := newEnvWith(t, envOptions{url: a.url, dir: a.dir, executorID: "poll-b", engineYAML: engineYAML})
	waitPolling(t, a.url, 2)
	// An api process registers the queues too, with the workers' count.
	newEnvWith(t, envOptions{url: a.url, dir: a.dir, executorID: "poll-api", engineYAML: engineYAML, noWorker: true})
	waitPolling(t, a.url, 2)
	if err := b.eng.Shutdown(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	waitPolling(t, a.url, 1)
}

// waitPolling waits until every manent queue polls at its own interval ×
// workers: the tests' poll_interval is 20ms (the deploys' queues),
// event_poll_interval its default, 250ms (the events' and the waits').
func waitPolling(t *testing.T, url string, workers int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	var got string
	for {
		rows, err := conn.Query(ctx, "SELECT name, polling_interval_sec FROM dbos.queues WHERE name LIKE 'manent.%' ORDER BY name")
		if err != nil {
			t.Fatal(err)
		}
		ok, n := true, 0
		got = ""
		for rows.Next() {
			var name string
			var sec float64
			if err := rows.Scan(&name, &sec); err != nil {
				t.Fatal(err)
			}
			d := time.Duration(sec * float64(time.Second))
			got += fmt.Sprintf(" %s=%s", name, d.Round(time.Millisecond))
			want := 20 * time.Millisecond * time.Duration(workers)
			if strings.HasPrefix(name, "manent.event") || name == "manent.wait" {
				want = 250 * time.Millisecond * time.Duration(workers)
			}
			ok = ok && (d-want).Abs() < time.Millisecond
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if ok && n > 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("queues poll at%s, want their intervals × %d", got, workers)
		case <-time.After(50 * time.Millisecond): // nothing tells when a heartbeat changed it
		}
	}
}
