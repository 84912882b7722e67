package engine

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
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
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := postgres.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	events := postgres.NewEvents(url, slog.Default())
	t.Cleanup(events.Close)
	if err := events.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	// kinds are the kinds of the events of id up to a sentinel notified
	// after the call: those sent before it.
	kinds := func(id string, sub <-chan deploy.Event) []deploy.EventKind {
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
