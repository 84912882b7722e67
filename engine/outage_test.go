package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/embeddedpg"
)

// outageFor is how long PostgreSQL stays down: longer than any step's
// retries (a few seconds here) and than DBOS's first reconnection delays.
const outageFor = 8 * time.Second

// TestDatabaseOutageFailsNothing stops PostgreSQL (an immediate shutdown,
// as pg_ctl stop -m immediate) while five deploys and a release run, and
// starts it again: every deploy and the release succeed, each step's work
// happens once on the targets, the inventory names what current points at,
// and no status or audit entry carries database text.
func TestDatabaseOutageFailsNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	pg, err := embeddedpg.Start(ctx, embeddedpg.Options{
		DataDir: filepath.Join(os.TempDir(), "manent-outage-"+strconv.Itoa(os.Getpid())), Ephemeral: true,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Stop() })
	// The embedded cluster of tests commits asynchronously: an immediate
	// shutdown would lose acknowledged commits, which no real deployment
	// of PostgreSQL does.
	admin, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE DATABASE outage", "ALTER DATABASE outage SET synchronous_commit = on"} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	_ = admin.Close(ctx)

	arrived := make(chan string, 16)
	release := make(chan struct{})
	var once sync.Map
	health := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, seen := once.LoadOrStore(r.URL.Path, true); !seen {
			arrived <- r.URL.Path
		}
		<-release
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(health.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})

	e := newEnvWith(t, envOptions{url: pg.URL("outage"), engineYAML: "chains: {poll_interval: 5m}"})
	writeRelease(t, e.dir, "1.0.0")
	target := func(app, env string) string { return filepath.Join(e.dir, "targets", app, env) }
	envConf := func(app, env string) {
		writeFile(t, filepath.Join(e.dir, "envconfig/demo", app, env+".yml"), fmt.Sprintf(
			"plugin: local\ntargets: [{path: %q}]\nhealth: [{url: %q}]\n", target(app, env), health.URL+"/"+app+"/"+env))
	}
	var deploys []string
	for i := range 5 {
		env := fmt.Sprintf("o%d", i)
		envConf("web", env)
		id := "outage-" + env
		if _, err := e.eng.Submit(e.ctx, []byte(webDescriptor(id, env, "1.0.0", "")), deploy.SubmitOptions{}); err != nil {
			t.Fatal(err)
		}
		deploys = append(deploys, id)
	}
	for _, app := range []string{"r1", "r2"} {
		envConf(app, "outage")
	}
	member := func(name, after string) string {
		m := fmt.Sprintf("  - name: %s\n    descriptor: {apiVersion: manent/v1, id: rel-%s, application: %s, environment: outage, "+
			"artifact: {type: application, name: %s, version: \"1.0.0\", source: \"file:web-1.0.0.tar.gz\"}}\n", name, name, name, name)
		if after != "" {
			m += "    after: [" + after + "]\n"
		}
		return m
	}
	doc := "apiVersion: manent/v1\nkind: Release\nid: rel\nonFailure: stop\ndeploys:\n" + member("r1", "") + member("r2", "r1")
	if _, err := e.eng.SubmitRelease(e.ctx, []byte(doc)); err != nil {
		t.Fatal(err)
	}
	deploys = append(deploys, "rel-r1", "rel-r2")

	// Five deploys and the release's first deploy are in post-test, the
	// second waits for the first: PostgreSQL goes away under all of them.
	for range 6 {
		select {
		case <-arrived:
		case <-ctx.Done():
			t.Fatal("the deploys did not reach post-test")
		}
	}
	if err := pg.Crash(ctx); err != nil {
		t.Fatal(err)
	}
	close(release) // the health checks answer 200 while the database is away
	time.Sleep(outageFor)
	if err := pg.Restart(ctx); err != nil {
		t.Fatal(err)
	}

	for _, id := range deploys {
		e.waitState(id, deploy.StateSuccess)
	}
	rel := waitRelease(t, e, "rel")
	if rel.State != deploy.ReleaseSuccess {
		t.Fatalf("release ended %s: %s", rel.State, rel.Error)
	}
	for _, id := range deploys {
		d, err := e.store.Get(e.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		dir := target(d.Application, d.Environment)
		ops := localJournal(t, dir)
		if ops["deploy"] != 1 || ops["activate"] != 1 {
			t.Errorf("%s: journal %v, want one deploy and one activate", id, ops)
		}
		cur, err := os.Readlink(filepath.Join(dir, "current"))
		if err != nil || filepath.Base(cur) != "1.0.0" {
			t.Errorf("%s: current -> %q, %v", id, cur, err)
		}
		for _, s := range d.Steps {
			if s.Kind == deploy.KindRun && s.Attempts != 1 {
				t.Errorf("%s: step %s took %d attempts: an outage is no attempt", id, s.Name, s.Attempts)
			}
		}
		noDatabaseText(t, id, deploy.NewStatus(d))
	}
	inv, err := e.store.Inventory(e.ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	inService := map[string]string{}
	for _, in := range inv {
		inService[in.Application+"/"+in.Environment] = in.DeploymentID
	}
	for _, id := range deploys {
		d, _ := e.store.Get(e.ctx, id)
		if got := inService[d.Application+"/"+d.Environment]; got != id {
			t.Errorf("inventory of %s/%s names %q, want %s", d.Application, d.Environment, got, id)
		}
	}
	conn, err := pgx.Connect(ctx, pg.URL("outage"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	var audit string
	if err := conn.QueryRow(ctx, "SELECT COALESCE(string_agg(details::text, ' '), '') FROM manent.audit").Scan(&audit); err != nil {
		t.Fatal(err)
	}
	noDatabaseText(t, "audit", audit)
}

// noDatabaseText fails when v, in JSON, shows anything of a database error.
func noDatabaseText(t *testing.T, what string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ToLower(string(b))
	for _, bad := range []string{"connect", "sqlstate", "dial tcp", "postgres", "pgx", "dbos", "127.0.0.1:", "retries"} {
		if strings.Contains(text, bad) {
			t.Errorf("%s shows %q: %s", what, bad, b)
		}
	}
}

// localJournal counts the operations the local plugin journaled on a target.
func localJournal(t *testing.T, dir string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".manent", "journal"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			out[f[1]]++
		}
	}
	return out
}

// waitRelease waits until the release ended, woken by its events.
func waitRelease(t *testing.T, e *env, id string) *deploy.Release {
	t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 2*time.Minute)
	defer cancel()
	ch := e.events.Subscribe(ctx, id)
	for {
		r, err := e.store.GetRelease(ctx, id)
		if err == nil && r.State.Terminal() {
			return r
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("release %s did not end (last: %+v, %v)", id, r, err)
		}
	}
}
