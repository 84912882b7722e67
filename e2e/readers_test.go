package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"manent.dev/manent/internal/pgtest"
)

// readerViews is everything a reader gets of a deploy, by where it came
// from: the CLI's status, steps and logs in every format, the REST status,
// and the audit entries of the deploy.
func (r *rig) readerViews(id string) map[string]string {
	r.t.Helper()
	views := map[string]string{}
	for _, args := range [][]string{
		{"status", id}, {"status", id, "-o", "json"}, {"status", id, "-o", "yaml"},
		{"steps", id}, {"steps", id, "-o", "json"}, {"logs", id}, {"logs", id, "-o", "json"},
	} {
		out, errOut, code := r.manent(tokenAdmin, args...)
		if code != 0 {
			r.t.Fatalf("manent %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
		}
		views["manent "+strings.Join(args, " ")] = out + errOut
	}
	body, code := r.get("/api/v1/deployments/" + id)
	if code != http.StatusOK {
		r.t.Fatalf("GET status of %s: %d %s", id, code, body)
	}
	views["GET status"] = string(body)
	views["audit"] = strings.Join(pgtest.Strings(r.t, r.srv.dbURL,
		"SELECT action || ' ' || details::text FROM manent.audit WHERE target = $1", id), "\n")
	return views
}

// TestReadersSeeNoSecrets: a health check whose URL carries user info and
// a token in its query, and a secret the worker does not have. What
// readers see of them (the plan, the status, the steps, the log, the CLI's
// progress, the audit entries) and the server's own log say where the
// check went and which secret is missing, never the credentials, the query
// or the secret's reference; the server's directories show relative.
func TestReadersSeeNoSecrets(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"secrets", "artifacts", "deploy", "post-test"}, maxRecovery: 3})
	r.srv.start()
	r.artifact("1.0.0")
	r.artifact("2.0.0")
	health := endpoint(t, func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/health/1.0.0" {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusNotFound)
	})
	r.env("staging", "plugin: local\ntargets: [{path: targets/staging}]\nhealth:\n  - url: \""+health+"/health/{{ .Version }}?token=s3cret\"\n")
	// User info is refused in the environment configuration, without
	// being quoted back.
	r.env("qa", "plugin: local\ntargets: [{path: targets/qa}]\nhealth:\n  - url: \""+
		strings.Replace(health, "http://", "http://user:pass@", 1)+"/health?token=s3cret\"\n")
	r.env("prod", "plugin: local\ntargets: [{path: targets/prod}]\nsecrets: [{name: db, ref: env:MANENT_SECRET_E2E_NEVER_SET}]\n")
	secrets := []string{"s3cret", "user:pass", "pass@", "MANENT_SECRET_E2E_NEVER_SET", "env:MANENT"}
	shown := strings.TrimSuffix(health, "/") + "/health/"

	views := map[string]string{}
	out, errOut, code := r.manent(tokenCI, "validate", "-f", r.descriptor("qa-1", "qa", "1.0.0", ""))
	if code != 2 || !strings.Contains(errOut, "health[0].url") {
		t.Fatalf("manent validate of a check with user info: exit %d, want 2\n%s%s", code, out, errOut)
	}
	views["manent validate qa-1"] = out + errOut
	okPath := r.descriptor("ok-1", "staging", "1.0.0", "")
	for _, args := range [][]string{{"validate", "-f", okPath}, {"validate", "-f", okPath, "-o", "json"}} {
		out, errOut, code := r.manent(tokenCI, args...)
		if code != 0 {
			t.Fatalf("manent %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
		}
		views["manent "+strings.Join(args, " ")] = out + errOut
		if !strings.Contains(out, shown+"{{ .Version }}") {
			t.Errorf("manent %s does not show where the check goes:\n%s", strings.Join(args, " "), out)
		}
	}
	plan, code := r.postAs(tokenAdmin, "/api/v1/deployments/plan", "", []byte("apiVersion: manent/v1\napplication: hello\nenvironment: staging\n"+
		"artifact: {type: application, name: hello, version: 1.0.0, source: \"file:hello-1.0.0.tar.gz\"}\n"))
	if code != http.StatusOK {
		t.Fatalf("plan: %d %s", code, plan)
	}
	views["POST plan"] = string(plan)

	r.deployFollowed(okPath)
	// The steps' outputs, which deployStatus leaves out.
	body, _ := r.get("/api/v1/deployments/ok-1")
	var st struct {
		Steps []struct {
			Name   string            `json:"name"`
			Output map[string]string `json:"output"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatal(err)
	}
	for _, s := range st.Steps {
		if s.Name == "config" && s.Output["source"] != "demo/hello/staging.yml" {
			t.Errorf("config source %q, want demo/hello/staging.yml", s.Output["source"])
		}
	}
	for _, c := range []struct{ id, env, version, want string }{
		{"bad-1", "staging", "2.0.0", "health check " + shown + "2.0.0: HTTP 404"},
		{"sec-1", "prod", "1.0.0", "a secret of the environment configuration is missing: db, for step secrets"},
	} {
		out, errOut, code := r.manent(tokenCI, "deploy", "-f", r.descriptor(c.id, c.env, c.version, ""), "--timeout", "2m")
		if code != 1 {
			t.Fatalf("manent deploy %s: exit %d, want 1\n%s%s", c.id, code, out, errOut)
		}
		views["manent deploy "+c.id] = out + errOut
		if st := r.status(c.id); !strings.Contains(st.errorText(), c.want) {
			t.Errorf("%s: error %q, want %q", c.id, st.errorText(), c.want)
		}
	}
	for _, id := range []string{"ok-1", "bad-1", "sec-1"} {
		for k, v := range r.readerViews(id) {
			views[id+": "+k] = v
		}
	}
	abs, err := filepath.Abs(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	for where, text := range views {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s shows %q:\n%s", where, s, text)
			}
		}
		if strings.Contains(where, "logs") && strings.Contains(text, abs) {
			t.Errorf("%s shows an absolute path of the server:\n%s", where, text)
		}
	}
	for _, s := range secrets[:3] {
		if strings.Contains(r.srv.output(), s) {
			t.Errorf("the server log shows %q:\n%s", s, r.srv.output())
		}
	}
}

// hostileArtifact is a tar.gz whose second entry cannot be written (its
// parent is the first, a file), named with an OSC title change, a bell, a
// screen clear and a line of its own that looks like a success.
func hostileArtifact(t *testing.T, name string) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range []string{"x", "x/" + name} {
		if err := tw.WriteHeader(&tar.Header{Name: e, Mode: 0o644, Size: 1, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestTarEntryCannotDriveTheTerminal: the entry name of an artifact ends
// up in the deploy's error; it is stored escaped, and `manent status`,
// `manent steps`, `manent logs` and the followed deploy print it escaped,
// on its own line, so it cannot retitle the terminal, clear it or print a
// fake "deploy finished: SUCCESS".
func TestTarEntryCannotDriveTheTerminal(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "qa", "deploy"}, maxRecovery: 3})
	r.srv.start()
	const name = "\x1b]0;pwned\x07\x1b[2J\n2025-01-02T03:04:05.000Z INFO  deploy finished: SUCCESS"
	const escaped = `\x1b]0;pwned\x07\x1b[2J\n2025-01-02T03:04:05.000Z INFO  deploy finished: SUCCESS`
	write(t, filepath.Join(r.dir, "artifacts", "hello-6.6.6.tar.gz"), hostileArtifact(t, name))
	r.env("staging", "plugin: local\ntargets: [{path: targets/staging}]\n")
	out, errOut, code := r.manent(tokenCI, "deploy", "-f", r.descriptor("tar-1", "staging", "6.6.6", ""), "--timeout", "2m")
	if code != 1 {
		t.Fatalf("manent deploy: exit %d, want 1\n%s%s", code, out, errOut)
	}
	st := r.status("tar-1")
	if !strings.Contains(st.errorText(), "write x/"+escaped) {
		t.Errorf("stored error %q lacks the escaped entry name", st.errorText())
	}
	if strings.Contains(st.errorText(), r.dir) {
		t.Errorf("stored error %q shows an absolute path of the server", st.errorText())
	}
	views := r.readerViews("tar-1")
	views["manent deploy"] = out + errOut
	for where, text := range views {
		for _, c := range text {
			if c < 0x20 && c != '\n' || c == 0x7f {
				t.Errorf("%s prints %U:\n%q", where, c, text)
				break
			}
		}
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "2025-01-02T03:04:05.000Z") {
				t.Errorf("%s prints the entry's fake line: %q", where, l)
			}
		}
		// JSON writes the escape's backslash as \\.
		isJSON := where == "audit" || where == "GET status" || strings.Contains(where, "json")
		if !isJSON && !strings.Contains(where, "logs") && !strings.Contains(text, escaped) {
			t.Errorf("%s does not show the entry name escaped:\n%s", where, text)
		}
	}
	if !strings.Contains(views["manent logs tar-1"], escaped) {
		t.Errorf("manent logs does not show the failed attempt escaped:\n%s", views["manent logs tar-1"])
	}
}
