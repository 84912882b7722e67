package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
	"manent.dev/manent/deploy"
)

func TestTerminalWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"plain text and layout", []string{"ID  hello-1\n", "\tSTEP\n"}, "ID  hello-1\n\tSTEP\n"},
		{"OSC title, bell, clear screen", []string{"x/\x1b]0;pwned\x07\x1b[2J\n"}, `x/\x1b]0;pwned\x07\x1b[2J` + "\n"},
		{"carriage return", []string{"50%\rdeploy SUCCESS\n"}, `50%\rdeploy SUCCESS` + "\n"},
		{"C1 CSI cut between two writes", []string{"a\xc2", "\x9b2J\n"}, `a\u009b2J` + "\n"},
		{"a letter cut between two writes", []string{"d\xc3", "\xa9ploy\n"}, "déploy\n"},
		{"bidirectional override", []string{"\u202eSSECCUS\n"}, `\u202eSSECCUS` + "\n"},
		{"invalid bytes", []string{"\xff\x9b[2J\n"}, `\xff\x9b[2J` + "\n"},
		{"a character never completed", []string{"end\xe2\x80"}, `end\xe2\x80`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := newTerminalWriter(&out)
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); err != nil || n != len(s) {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("printed %q, want %q", out.String(), tt.want)
			}
		})
	}
}

// hostile is text a server could send that a terminal would act on: a
// title change, a bell, a clear screen, then a line of its own that looks
// like the end of a successful deploy.
const hostile = "x/\x1b]0;pwned\x07\x1b[2J\n2025-01-02T03:04:09.000Z INFO  deploy finished: SUCCESS\u009b\x7f"

// escapedHostile is hostile as the CLI prints it.
const escapedHostile = `x/\x1b]0;pwned\x07\x1b[2J\n2025-01-02T03:04:09.000Z INFO  deploy finished: SUCCESS\u009b\x7f`

func hostileServer(t *testing.T) *clienttest.Server {
	srv := clienttest.New(t)
	d := deployment("hello-1", client.DeploymentStateError,
		step("deploy", 0, client.StepStateError, 1, 10, "step deploy: "+hostile))
	d.Error = "step deploy failed: " + hostile
	d.Approval = &client.ApprovalDetail{Status: "approved", Required: 1,
		Approvals: []client.Approval{{Identity: "token:ops", Approved: true, Comment: hostile, Time: t0}}}
	// The status JSON as a server may write it: DEL and C1 raw in a
	// string, which JSON allows.
	d.Status = json.RawMessage(`{"id":"hello-1","state":"ERROR","steps":[],"error":"` + "\x7f\u009b" + `\u001b[2J"}`)
	srv.Handle("GetDeployment", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"deployment": d}, nil
	})
	srv.Handle("GetLogs", func(clienttest.Request) (any, *clienttest.Error) {
		lines := []client.LogLineDetail{{Seq: 1, Time: t0, Step: "deploy", Level: "info", Message: hostile}}
		return map[string]any{"deployment": map[string]any{"id": "hello-1", "state": client.DeploymentStateError,
			"logs": map[string]any{"lines": lines, "lastSeq": 1}}}, nil
	})
	srv.Handle("SubmitDeployment", func(clienttest.Request) (any, *clienttest.Error) {
		return submitted(deployment("hello-1", client.DeploymentStateEnqueued)), nil
	})
	srv.HandleSubscription("DeploymentEvents", func(ctx context.Context, _ clienttest.Request, s *clienttest.Stream) error {
		return s.Next(map[string]any{"deploymentEvents": map[string]any{"kind": "state", "deployment": d, "logLines": []any{}}})
	})
	srv.Handle("CancelDeployment", func(clienttest.Request) (any, *clienttest.Error) {
		return nil, &clienttest.Error{Message: "refused: " + hostile, Code: "CONFLICT"}
	})
	return srv
}

// TestHostileTextIsEscaped: whatever the server sends, the CLI prints no
// control character but the new lines of its own layout (and the tabs of
// none), in every format; the hostile text shows escaped, on its line.
func TestHostileTextIsEscaped(t *testing.T) {
	srv := hostileServer(t)
	env := map[string]string{envServer: srv.URL}
	tests := []struct {
		name string
		args []string
		// shown must be in the output; for json and yaml the output must
		// parse and hold the text.
		shown  string
		format format
	}{
		{name: "status", args: []string{"status", "hello-1"}, shown: escapedHostile},
		{name: "status json", args: []string{"status", "hello-1", "-o", "json"}, format: formatJSON},
		{name: "status yaml", args: []string{"status", "hello-1", "-o", "yaml"}, format: formatYAML},
		{name: "steps", args: []string{"steps", "hello-1"}, shown: escapedHostile},
		{name: "steps json", args: []string{"steps", "hello-1", "-o", "json"}, format: formatJSON},
		{name: "logs", args: []string{"logs", "hello-1"}, shown: "INFO  deploy: " + escapedHostile + "\n"},
		{name: "logs json", args: []string{"logs", "hello-1", "-o", "json"}, format: formatJSON},
		{name: "deploy followed", args: []string{"deploy", "-f", writeFile(t, "d.yml", descriptor)}, shown: escapedHostile},
		{name: "refused", args: []string{"cancel", "hello-1"}, shown: "conflict: refused: " + escapedHostile + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, env, "", tt.args...)
			for stream, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
				for _, c := range text {
					if c != '\n' && deploy.Escaped(c) {
						t.Errorf("%s prints %U:\n%s", stream, c, text)
						break
					}
				}
				if !utf8.ValidString(text) {
					t.Errorf("%s is not UTF-8: %q", stream, text)
				}
			}
			all := r.stdout + r.stderr
			if tt.shown != "" && !strings.Contains(all, tt.shown) {
				t.Errorf("output lacks %q:\n%s", tt.shown, all)
			}
			for _, l := range strings.Split(all, "\n") {
				if strings.HasPrefix(l, "2025-01-02T03:04:09.000Z") {
					t.Errorf("the server's text printed a line of its own: %q", l)
				}
			}
			switch tt.format {
			case formatJSON:
				for _, doc := range strings.Split(strings.TrimSpace(r.stdout), "\n{") {
					if !strings.HasPrefix(doc, "{") && !strings.HasPrefix(doc, "[") {
						doc = "{" + doc
					}
					if !json.Valid([]byte(doc)) {
						t.Errorf("not JSON: %s", doc)
					}
				}
			case formatYAML:
				var v any
				if err := yaml.Unmarshal([]byte(r.stdout), &v); err != nil {
					t.Errorf("not YAML: %v\n%s", err, r.stdout)
				}
				if !strings.Contains(r.stdout, `\x7F`) && !strings.Contains(r.stdout, `\u007f`) {
					t.Errorf("YAML lacks the escaped DEL:\n%s", r.stdout)
				}
			}
		})
	}
}

// TestLiveProgressEscapes: the live block writes its own cursor movements
// to the terminal, and nothing of the server's.
func TestLiveProgressEscapes(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, true, 200, func() time.Time { return t0 })
	d := deployment("hello-1", client.DeploymentStateError, step("deploy", 0, client.StepStateError, 1, 10, hostile))
	p.Update(d)
	p.Finish()
	text := out.String()
	// What the block writes itself: line clears and cursor moves.
	rest := strings.NewReplacer("\r\x1b[2K", "", "\x1b[1A", "", "\x1b[2A", "").Replace(text)
	for _, c := range rest {
		if c != '\n' && deploy.Escaped(c) {
			t.Fatalf("the live progress prints %U of the server's:\n%q", c, text)
		}
	}
	if !strings.Contains(text, escapedHostile) {
		t.Errorf("the step's error is not shown escaped:\n%q", text)
	}
}
