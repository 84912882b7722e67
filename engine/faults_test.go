package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	_ "github.com/jackc/pgx/v5/stdlib"

	"manent.dev/manent/deploy"
)

// TestReadOnlyDatabaseFailsNothing makes manent's database refuse writes
// (as a primary being failed over, or default_transaction_read_only during
// maintenance) while a step's end is recorded: the deploy waits, then
// succeeds, with every log line.
func TestReadOnlyDatabaseFailsNothing(t *testing.T) {
	e := newEnv(t)
	db, err := sql.Open("pgx", e.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	db.SetMaxOpenConns(1)
	var name string
	if err := db.QueryRow("SELECT current_database()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	readOnly := func(on bool) {
		t.Helper()
		if _, err := db.Exec(fmt.Sprintf(`ALTER DATABASE %q SET default_transaction_read_only = %t`, name, on)); err != nil {
			t.Fatal(err)
		}
		// Sessions take the setting when they connect.
		if _, err := db.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, name); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { readOnly(false) })
	started, refused := make(chan struct{}), make(chan struct{})
	e.plugin.deploy = func(ctx context.Context, req deploy.PluginRequest) error {
		close(started)
		<-refused
		return nil
	}
	e.submit("ro-1", "app", "staging")
	<-started
	readOnly(true)
	close(refused)              // the end of deploy is recorded now, and refused
	time.Sleep(3 * time.Second) // how long the database refuses writes
	readOnly(false)
	d := e.waitState("ro-1", deploy.StateSuccess)
	for _, s := range d.Steps {
		if s.State != deploy.StepSuccess {
			t.Errorf("step %s %s (%s)", s.Key().Name(), s.State, s.Error)
		}
	}
	lines, err := e.store.Logs(e.ctx, "ro-1", 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, l := range lines {
		all = append(all, l.Message)
	}
	for _, want := range []string{"deploy succeeded in", "post-test succeeded in", "deploy finished: SUCCESS"} {
		if !strings.Contains(strings.Join(all, "\n"), want) {
			t.Errorf("log lacks %q:\n%s", want, strings.Join(all, "\n"))
		}
	}
}

// TestHostileTextIsRecorded: a plugin's error and outputs carry bytes
// PostgreSQL refuses in text (invalid UTF-8, NUL): the deploy's record
// holds them cleaned (the outputs) or escaped (the error), and the deploy
// ends as its step did, never through an internal error.
func TestHostileTextIsRecorded(t *testing.T) {
	e := newEnv(t)
	e.plugin.outputs = map[string]string{"note\x00": "bad \xff byte\x00"}
	e.plugin.deploy = func(ctx context.Context, req deploy.PluginRequest) error {
		if req.DeploymentID == "ht-fail" {
			return deploy.Permanent(errors.New("entry link\xff\x00 refused"))
		}
		return nil
	}
	e.submit("ht-ok", "app", "staging")
	ok := e.waitState("ht-ok", deploy.StateSuccess)
	out := step(ok, deploy.StepDeploy).Output
	if out["note"] != "bad \uFFFD byte" {
		t.Errorf("deploy output %q, want the cleaned text", out)
	}
	e.submit("ht-fail", "app", "staging")
	failed := e.waitState("ht-fail", deploy.StateError)
	s := step(failed, deploy.StepDeploy)
	if s.State != deploy.StepError || !utf8.ValidString(s.Error) || strings.ContainsRune(s.Error, 0) ||
		!strings.Contains(s.Error, `entry link\xff\x00 refused`) {
		t.Errorf("deploy step %s %q, want ERROR with the escaped message", s.State, s.Error)
	}
	if !strings.Contains(failed.Error, `link\xff\x00 refused`) {
		t.Errorf("deploy error %q", failed.Error)
	}
}

// TestHealthErrorHidesTheQuery: a health check that cannot connect says
// where it tried without the URL's query, which may hold a token.
func TestHealthErrorHidesTheQuery(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.dir+"/envconfig/demo/app/staging.yml",
		"plugin: test\ntargets: [{path: /nowhere}]\nhealth: [{url: \"http://127.0.0.1:1/h/{{ .Version }}?token=s3cret\"}]\n")
	e.submit("q-1", "app", "staging")
	d := e.waitState("q-1", deploy.StateError)
	lines, err := e.store.Logs(e.ctx, "q-1", 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{d.Error, step(d, deploy.StepPostTest).Error}
	for _, l := range lines {
		texts = append(texts, l.Message)
	}
	for _, s := range texts {
		if strings.Contains(s, "s3cret") {
			t.Errorf("the query string reaches a reader: %q", s)
		}
	}
	if !strings.Contains(d.Error, "http://127.0.0.1:1/h/1.0.0") {
		t.Errorf("error %q does not say where the check went", d.Error)
	}
}
