package itsm

import (
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

func validConfig() Config {
	return Config{
		BaseURL: "https://itsm.example.com/prefix/",
		Auth:    Auth{Type: AuthBearer, Secret: "env:MANENT_SECRET_ITSM"},
		Open: OpenCall{Path: "/changes", Body: `{"title": "{{ .Application }}", "n": 1, "tags": ["{{.Version}}"]}`,
			IDPath: "$.id"},
		Status: StatusCall{Path: "/changes/{{ .TicketID }}", StatePath: "$.state", ApprovedValues: []string{"ok"}},
		Close:  CloseCall{Path: "/changes/{{ .TicketID }}", Body: `{"result": "{{ .OutcomeValue }}"}`},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(c *Config)
		want   []string // "path: message fragment"
	}{
		{name: "valid", change: func(*Config) {}},
		{name: "empty", change: func(c *Config) { *c = Config{} }, want: []string{
			"auth.secret: must be a secret reference", "auth.type: is required", "base_url: is required",
			"open.body: is required", "open.id_path: is required", "open.path: is required",
			"status.approved_values: needs at least one value", "status.path: is required",
			"status.state_path: is required", "close.path: is required",
		}},
		{name: "base url with credentials", change: func(c *Config) { c.BaseURL = "https://u:p@itsm.example.com" },
			want: []string{"base_url: must not hold credentials"}},
		{name: "base url relative", change: func(c *Config) { c.BaseURL = "itsm.example.com" },
			want: []string{"base_url: must be an absolute http or https URL"}},
		{name: "base url query", change: func(c *Config) { c.BaseURL = "https://itsm.example.com?x=1" },
			want: []string{"base_url: must not have a query"}},
		{name: "secret pasted instead of a reference", change: func(c *Config) { c.Auth.Secret = "hunter2" },
			want: []string{"auth.secret: must be a secret reference"}},
		{name: "basic without username", change: func(c *Config) { c.Auth.Type = AuthBasic },
			want: []string{"auth.username: is required"}},
		{name: "bearer with username", change: func(c *Config) { c.Auth.Username = "x" },
			want: []string{"auth.username: is only used with basic"}},
		{name: "unknown auth", change: func(c *Config) { c.Auth.Type = "oauth" },
			want: []string{"auth.type: must be bearer or basic"}},
		{name: "timeouts", change: func(c *Config) { c.Timeout = time.Hour },
			want: []string{"timeout: must be between"}},
		{name: "methods", change: func(c *Config) {
			c.Open.Method, c.Status.Method, c.Close.Method = "GET", "DELETE", "get"
		}, want: []string{"close.method: must be one of", "open.method: must be one of", "status.method: must be one of"}},
		{name: "unknown placeholder", change: func(c *Config) { c.Open.Body = `{"a": "{{ .TicketID }}"}` },
			want: []string{"open.body: a: unknown placeholder {{ .TicketID }}"}},
		{name: "malformed placeholder", change: func(c *Config) { c.Open.Body = `{"a": {"b": ["{{ Application }}"]}}` },
			want: []string{"open.body: a: b: [0]: malformed placeholder"}},
		{name: "placeholder in a key", change: func(c *Config) { c.Close.Body = `{"{{ .Outcome }}": 1}` },
			want: []string{"close.body: key"}},
		{name: "body not an object", change: func(c *Config) { c.Open.Body = `["x"]` },
			want: []string{"open.body: must be a JSON object"}},
		{name: "body two documents", change: func(c *Config) { c.Open.Body = `{} {}` },
			want: []string{"open.body: must be a single JSON object"}},
		{name: "body not JSON", change: func(c *Config) { c.Open.Body = `title: x` },
			want: []string{"open.body: must be a JSON object"}},
		{name: "path without slash", change: func(c *Config) { c.Open.Path = "changes" },
			want: []string{"open.path: must start with /"}},
		{name: "path with fragment", change: func(c *Config) { c.Open.Path = "/changes#x" },
			want: []string{"open.path: must be a URL path"}},
		{name: "status path without ticket", change: func(c *Config) { c.Status.Path = "/changes" },
			want: []string{"status.path: must use {{ .TicketID }}"}},
		{name: "status path with open placeholder", change: func(c *Config) { c.Status.Path = "/c/{{ .TicketID }}/{{ .Version }}" },
			want: []string{"status.path: unknown placeholder {{ .Version }}"}},
		{name: "bad json paths", change: func(c *Config) {
			c.Open.IDPath, c.Open.NumberPath, c.Status.StatePath = "result.id", "$..n", "$["
		}, want: []string{"open.id_path: invalid JSON path", "open.number_path: invalid JSON path", "status.state_path: invalid JSON path"}},
		{name: "values", change: func(c *Config) {
			c.Status.ApprovedValues = []string{"ok", ""}
			c.Status.RejectedValues = []string{"ok"}
		}, want: []string{"status.approved_values[1]: must not be empty", "status.rejected_values[0]: \"ok\" is also an approved value"}},
		{name: "outcome values", change: func(c *Config) {
			c.Close.OutcomeValues = map[string]string{"success": "done", "failed": "x"}
		}, want: []string{"close.outcome_values.failed: unknown outcome"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validConfig()
			tt.change(&c)
			got := c.Validate()
			if len(got) != len(tt.want) {
				t.Fatalf("got %d errors, want %d:\n%s", len(got), len(tt.want), join(got))
			}
			for _, w := range tt.want {
				if !strings.Contains(join(got), w) {
					t.Errorf("missing %q in:\n%s", w, join(got))
				}
			}
			if strings.Contains(join(got), "hunter2") {
				t.Error("a pasted secret is echoed")
			}
		})
	}
}

func join(fe []deploy.FieldError) string {
	s := make([]string, len(fe))
	for i, f := range fe {
		s[i] = f.String()
	}
	return strings.Join(s, "\n")
}

func TestNewRejectsInvalidConfig(t *testing.T) {
	_, err := New(Config{}, nil, nil)
	if deploy.ErrorCode(err) != deploy.EINVALID || !deploy.IsPermanent(err) {
		t.Fatalf("got %v (%s), want a permanent EINVALID", err, deploy.ErrorCode(err))
	}
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"TicketID": "../x?y=1#z", "Outcome": "a \"b\"\n<c>"}
	if got, want := expandPath("/t/{{ .TicketID }}?f=1", vars), "/t/..%2Fx%3Fy=1%23z?f=1"; got != want {
		t.Errorf("path: got %s, want %s", got, want)
	}
	b, err := parseBody(`{"o": "outcome: {{.Outcome}}", "n": 12345678901234567890, "keep": [true, null, "{{ .TicketID }}"]}`, closeVars)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.render(vars)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"keep":[true,null,"../x?y=1#z"],"n":12345678901234567890,"o":"outcome: a \"b\"\n<c>"}`
	if string(got) != want {
		t.Errorf("body:\n got %s\nwant %s", got, want)
	}
}
