package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"manent.dev/manent/deploy"
)

// readerTexts is everything the readers of a deploy see of it as text:
// its error, its steps' errors and outputs, its log and its audit entries.
func (e *env) readerTexts(d *deploy.Deployment) []string {
	e.t.Helper()
	texts := []string{d.Error}
	for _, s := range d.Steps {
		texts = append(texts, s.Error)
		for k, v := range s.Output {
			texts = append(texts, k+"="+v)
		}
	}
	lines, err := e.store.Logs(e.ctx, d.ID, 0, 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, l := range lines {
		texts = append(texts, l.Message)
	}
	db, err := sql.Open("pgx", e.url)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	rows, err := db.Query("SELECT details::text FROM manent.audit WHERE target = $1", d.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		var details string
		if err := rows.Scan(&details); err != nil {
			e.t.Fatal(err)
		}
		texts = append(texts, details)
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return texts
}

func (e *env) logText(id string) string {
	e.t.Helper()
	lines, err := e.store.Logs(e.ctx, id, 0, 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.Message + "\n")
	}
	return b.String()
}

// TestMissingSecretHidesItsReference: a secret the environment
// configuration names but the worker cannot find fails the deploy with
// which secret and which step, never where it is read from.
func TestMissingSecretHidesItsReference(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.dir+"/envconfig/demo/app/staging.yml",
		"plugin: test\ntargets: [{path: /nowhere}]\nsecrets: [{name: db, ref: env:MANENT_SECRET_H3_NEVER_SET}, {name: tls, ref: \"file:keys/tls.pem\"}]\n")
	writeFile(t, e.dir+"/envconfig/demo/app/prod.yml",
		"plugin: test\ntargets: [{path: /nowhere}]\nsecrets: [{name: tls, ref: \"file:keys/tls.pem\"}]\n")
	for _, tt := range []struct {
		id, env, want string
	}{
		{"sec-env", "staging", "a secret of the environment configuration is missing: db, for step secrets"},
		{"sec-file", "prod", "a secret of the environment configuration is missing: tls, for step secrets"},
	} {
		e.submit(tt.id, "app", tt.env)
		d := e.waitState(tt.id, deploy.StateError)
		if got := step(d, deploy.StepSecrets).Error; got != tt.want {
			t.Errorf("%s: secrets step error %q, want %q", tt.id, got, tt.want)
		}
		for _, s := range e.readerTexts(d) {
			if strings.Contains(s, "MANENT_SECRET_H3_NEVER_SET") || strings.Contains(s, "keys/tls.pem") || strings.Contains(s, "env:") {
				t.Errorf("%s: a reader sees the secret's reference: %q", tt.id, s)
			}
		}
	}
}

// TestReadersSeeRelativePaths: what readers see of the server's own
// directories is relative to them: the environment configuration as a
// file of envconfig.dir, the working directory of a deploy (in a plugin's
// error and log line) under <work_dir>.
func TestReadersSeeRelativePaths(t *testing.T) {
	e := newEnv(t)
	e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		req.Log("reading %s", req.ArtifactPath)
		return deploy.Permanent(errors.New("open " + req.ArtifactPath + ": permission denied"))
	}
	e.submit("rel-1", "app", "staging")
	d := e.waitState("rel-1", deploy.StateError)
	if got := step(d, deploy.StepConfig).Output["source"]; got != "demo/app/staging.yml" {
		t.Errorf("config source %q, want the file relative to envconfig.dir", got)
	}
	if want := "open <work_dir>/rel-1/artifact: permission denied"; step(d, deploy.StepDeploy).Error != want {
		t.Errorf("deploy step error %q, want %q", step(d, deploy.StepDeploy).Error, want)
	}
	if log := e.logText("rel-1"); !strings.Contains(log, "reading <work_dir>/rel-1/artifact\n") {
		t.Errorf("the plugin's log line does not show the path relative:\n%s", log)
	}
	abs, err := filepath.Abs(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range e.readerTexts(d) {
		if strings.Contains(s, abs) {
			t.Errorf("a reader sees an absolute path of the server: %q", s)
		}
	}
}

// TestControlCharactersAreEscaped: a plugin's log line and error carry
// what an archive's entry name can: an OSC title, a bell, a clear screen
// and a new line that would print a fake line of the log. They are stored
// as one line each, escaped.
func TestControlCharactersAreEscaped(t *testing.T) {
	e := newEnv(t)
	const name = "x/\x1b]0;pwned\x07\x1b[2J\ndeploy finished: SUCCESS\u009b"
	const shown = `x/\x1b]0;pwned\x07\x1b[2J\ndeploy finished: SUCCESS\u009b`
	e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		req.Log("unpacking %s", name)
		return deploy.Permanentf("artifact entry %s refused", name)
	}
	e.submit("esc-1", "app", "staging")
	d := e.waitState("esc-1", deploy.StateError)
	if want := "artifact entry " + shown + " refused"; step(d, deploy.StepDeploy).Error != want {
		t.Errorf("deploy step error %q, want %q", step(d, deploy.StepDeploy).Error, want)
	}
	if !strings.Contains(d.Error, shown) {
		t.Errorf("deploy error %q lacks %q", d.Error, shown)
	}
	if log := e.logText("esc-1"); !strings.Contains(log, "unpacking "+shown+"\n") {
		t.Errorf("the log line is not escaped:\n%s", log)
	}
	for _, s := range e.readerTexts(d) {
		for _, r := range s {
			if deploy.Escaped(r) {
				t.Errorf("a reader gets %U raw: %q", r, s)
				break
			}
		}
	}
}
