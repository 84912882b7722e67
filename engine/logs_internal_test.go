package engine

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	neturl "net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
)

// The log writer sends the notifications it was given (Notify): while it
// runs, alone within notifyInterval; after a batch that carried them was
// refused for its lines; and when it stops, before it stops, so the
// followers of a worker that stops gracefully see its deploys' last
// changes.
func TestLogWriterNotifies(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := pgtest.URL(t)
	db, events := openNotifying(ctx, t, url)
	kinds := func(id string, sub <-chan deploy.Event) []deploy.EventKind {
		t.Helper()
		return notifiedKinds(ctx, t, db, id, sub)
	}
	want := []deploy.EventKind{deploy.EventDeployment, deploy.EventStep}
	slices.Sort(want)

	w := newLogWriter(postgres.NewStore(db), slog.Default(), nil)
	w.start()
	running := events.Subscribe(ctx, "running")
	w.Notify("running", deploy.EventStep, deploy.EventDeployment)
	// Sent by the writer on its own: flush waits for them.
	if err := w.flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := kinds("running", running); !slices.Equal(got, want) {
		t.Errorf("while running: notified %q, want %q", got, want)
	}

	// A call without kinds notifies nothing, and holds up no flush.
	w.Notify("nothing")
	if err := w.flush(ctx); err != nil {
		t.Fatal(err)
	}

	// A batch refused (a line's number is taken: 23505, not the database
	// being away) drops its lines, not the notifications it carried.
	for _, q := range []string{
		`INSERT INTO manent.deployments (id, application, environment, state) VALUES ('taken', 'app', 'prod', 'ENQUEUED')`,
		`INSERT INTO manent.deployment_logs (deployment_id, seq, message) VALUES ('taken', 1, 'there first')`,
	} {
		if _, err := db.SQL().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	other := events.Subscribe(ctx, "other")
	w.Write(deploy.LogLine{DeploymentID: "taken", Time: time.Now(), Message: "refused"})
	w.Notify("other", deploy.EventStep, deploy.EventDeployment)
	if err := w.flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := kinds("other", other); !slices.Equal(got, want) {
		t.Errorf("with a batch refused: notified %q, want %q", got, want)
	}

	stopping := events.Subscribe(ctx, "stopping")
	w.Notify("stopping", deploy.EventStep, deploy.EventDeployment)
	w.Notify("stopping", deploy.EventStep)
	if err := w.close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := kinds("stopping", stopping); !slices.Equal(got, want) {
		t.Errorf("at the stop: notified %q, want %q (once each)", got, want)
	}
}

// TestLogWriterNotifiesAfterAnOutage: notifications queued while the
// database is out of reach (a batch of notifications alone, no line to
// carry them) are not lost and not taken as sent: flush waits for them,
// and they are sent once the database is back.
func TestLogWriterNotifiesAfterAnOutage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	direct := pgtest.URL(t)
	db, events := openNotifying(ctx, t, direct)
	u, err := neturl.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	g := newGate(t, u.Host)
	u.Host = g.addr
	through, err := postgres.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = through.Close() })

	w := newLogWriter(postgres.NewStore(through), slog.Default(), nil)
	w.start()
	t.Cleanup(func() {
		// A failure while the gate is shut must not leave the close waiting
		// for the database.
		g.open()
		c, stop := context.WithTimeout(context.Background(), 30*time.Second)
		defer stop()
		_ = w.close(c)
	})
	// A first notification, sent: the writer holds a connection when the
	// database goes away.
	sub := events.Subscribe(ctx, "away")
	w.Notify("away", deploy.EventStep)
	if err := w.flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := notifiedKinds(ctx, t, db, "away", sub); !slices.Equal(got, []deploy.EventKind{deploy.EventStep}) {
		t.Fatalf("before the outage: notified %q", got)
	}

	g.shut()
	w.Notify("away", deploy.EventDeployment)
	// The writer tried while the database was away: its connection was
	// cut, and a new one refused.
	select {
	case <-g.refused:
	case <-ctx.Done():
		t.Fatal("the writer did not try to reach the database")
	}
	short, stop := context.WithTimeout(ctx, 200*time.Millisecond)
	err = w.flush(short)
	stop()
	if err == nil {
		t.Error("flush returned while the database was away: the notification counted as sent")
	}
	if got := notifiedKinds(ctx, t, db, "away", sub); len(got) != 0 {
		t.Errorf("while away: notified %q", got)
	}

	g.open()
	if err := w.flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := notifiedKinds(ctx, t, db, "away", sub); !slices.Equal(got, []deploy.EventKind{deploy.EventDeployment}) {
		t.Errorf("after the outage: notified %q, want the deployment's once", got)
	}
}

func openNotifying(ctx context.Context, t *testing.T, url string) (*postgres.DB, *postgres.Events) {
	t.Helper()
	db := pgtest.Migrated(t, url)
	events := postgres.NewEvents(url, slog.Default())
	t.Cleanup(events.Close)
	if err := events.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	return db, events
}

// notifiedKinds are the kinds of the events of id sent before a sentinel
// notified by the call, sorted.
func notifiedKinds(ctx context.Context, t *testing.T, db *postgres.DB, id string, sub <-chan deploy.Event) []deploy.EventKind {
	t.Helper()
	sentinel := deploy.Event{Kind: "sentinel", DeploymentID: id}
	p, err := json.Marshal(sentinel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, "SELECT pg_notify($1, $2)", postgres.Channel, string(p)); err != nil {
		t.Fatal(err)
	}
	var got []deploy.EventKind
	for {
		select {
		case ev := <-sub:
			if ev == sentinel {
				slices.Sort(got)
				return got
			}
			got = append(got, ev.Kind)
		case <-ctx.Done():
			t.Fatal("no sentinel")
		}
	}
}

// dbGate forwards connections to PostgreSQL until shut: then it cuts the
// connections it carries and closes each new one at once, as a server
// that went away, until opened again.
type dbGate struct {
	addr    string
	refused chan struct{}

	mu     sync.Mutex
	isShut bool
	conns  []net.Conn
}

func newGate(t *testing.T, target string) *dbGate {
	t.Helper()
	g := &dbGate{refused: make(chan struct{}, 1)}
	g.addr = ProxyTo(t, target, func(client, server net.Conn) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.isShut {
			_ = client.Close()
			_ = server.Close()
			select {
			case g.refused <- struct{}{}:
			default:
			}
			return
		}
		g.conns = append(g.conns, client, server)
		go func() { _, _ = io.Copy(server, client); _ = server.Close() }()
		go func() { _, _ = io.Copy(client, server); _ = client.Close() }()
	})
	return g
}

func (g *dbGate) shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.isShut = true
	for _, c := range g.conns {
		_ = c.Close()
	}
	g.conns = nil
}

func (g *dbGate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.isShut = false
}
