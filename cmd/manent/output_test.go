package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/client"
)

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// fixedDeployment is a finished deploy with a status JSON whose keys are not
// in alphabetical order: outputs must keep the server's order.
func fixedDeployment() *client.DeploymentDetail {
	return &client.DeploymentDetail{
		Id: "hello-1", Tenant: "demo", Application: "hello", Environment: "staging",
		State: client.DeploymentStateError, Requester: "token:ci",
		CreatedAt: t0, StartedAt: t0.Add(time.Second), FinishedAt: t0.Add(4 * time.Second),
		Artifact: client.ArtifactDetail{Type: "tarball", Name: "hello", Version: "1.0.0", Source: "file:///a/hello.tgz"},
		Sha256:   "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		Error:    "step qa failed",
		Steps: []client.StepDetail{
			{Name: "config", Kind: client.StepKindRun, Position: 0, State: client.StepStateSuccess, Attempts: 1, StartedAt: t0.Add(time.Second), FinishedAt: t0.Add(1200 * time.Millisecond), DurationMs: 200},
			{Name: "qa", Kind: client.StepKindRun, Position: 1, State: client.StepStateError, Attempts: 3, StartedAt: t0.Add(2 * time.Second), FinishedAt: t0.Add(4 * time.Second), DurationMs: 2000, Error: "sha256 mismatch"},
			{Name: "deploy", Kind: client.StepKindRun, Position: 2, State: client.StepStateSkipped},
		},
		Status: json.RawMessage(`{"id":"hello-1","state":"ERROR","dry_run":false,"created_at":"2025-01-02T03:04:05Z",` +
			`"artifact":{"version":"1.0","sha256":null},"steps":[` +
			`{"name":"config","state":"SUCCESS","attempts":1,"started_at":"2025-01-02T03:04:06Z","finished_at":"2025-01-02T03:04:06.2Z","output":{"revision":"abc"},"error":null},` +
			`{"name":"qa","state":"ERROR","attempts":3,"started_at":"2025-01-02T03:04:07Z","finished_at":"2025-01-02T03:04:09Z","output":{},"error":"sha256 mismatch"},` +
			`{"name":"deploy","state":"SKIPPED","attempts":0,"started_at":null,"finished_at":null,"output":{},"error":null}],"exports":{}}`),
	}
}

func TestStatusOutputs(t *testing.T) {
	d := fixedDeployment()
	tests := []struct {
		format format
		want   string
	}{
		{formatJSON, `{
  "id": "hello-1",
  "state": "ERROR",
  "dry_run": false,
  "created_at": "2025-01-02T03:04:05Z",
  "artifact": {
    "version": "1.0",
    "sha256": null
  },
  "steps": [
    {
      "name": "config",
      "state": "SUCCESS",
      "attempts": 1,
      "started_at": "2025-01-02T03:04:06Z",
      "finished_at": "2025-01-02T03:04:06.2Z",
      "output": {
        "revision": "abc"
      },
      "error": null
    },
    {
      "name": "qa",
      "state": "ERROR",
      "attempts": 3,
      "started_at": "2025-01-02T03:04:07Z",
      "finished_at": "2025-01-02T03:04:09Z",
      "output": {},
      "error": "sha256 mismatch"
    },
    {
      "name": "deploy",
      "state": "SKIPPED",
      "attempts": 0,
      "started_at": null,
      "finished_at": null,
      "output": {},
      "error": null
    }
  ],
  "exports": {}
}
`},
		{formatYAML, `id: hello-1
state: ERROR
dry_run: false
created_at: "2025-01-02T03:04:05Z"
artifact:
  version: "1.0"
  sha256: null
steps:
  - name: config
    state: SUCCESS
    attempts: 1
    started_at: "2025-01-02T03:04:06Z"
    finished_at: "2025-01-02T03:04:06.2Z"
    output:
      revision: abc
    error: null
  - name: qa
    state: ERROR
    attempts: 3
    started_at: "2025-01-02T03:04:07Z"
    finished_at: "2025-01-02T03:04:09Z"
    output: {}
    error: sha256 mismatch
  - name: deploy
    state: SKIPPED
    attempts: 0
    started_at: null
    finished_at: null
    output: {}
    error: null
exports: {}
`},
		{formatTable, `ID          hello-1
Deployment  demo/hello/staging
State       ERROR
Requester   token:ci
Artifact    hello 1.0.0 (tarball) from file:///a/hello.tgz
SHA-256     0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
Created     2025-01-02T03:04:05Z
Started     2025-01-02T03:04:06Z
Finished    2025-01-02T03:04:09Z (3.0s)
Error       step qa failed

STEP    KIND  STATE    ATTEMPTS  STARTED               DURATION  ERROR
config  run   SUCCESS  1         2025-01-02T03:04:06Z  200ms     -
qa      run   ERROR    3         2025-01-02T03:04:07Z  2.0s      sha256 mismatch
deploy  run   SKIPPED  0         -                     -         -
`},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			var buf bytes.Buffer
			a := &app{stdout: &buf, format: tt.format}
			if err := a.emit(d.Status, func(w io.Writer) error { return statusTable(w, d, t0) }); err != nil {
				t.Fatal(err)
			}
			if got := buf.String(); got != tt.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestYAMLQuotesWhatWouldChangeType(t *testing.T) {
	v := map[string]any{"a": "true", "b": "1.0", "c": "null", "d": "plain", "e": "line1\nline2", "f": []string{}, "g": 3}
	var buf bytes.Buffer
	if err := writeYAML(&buf, v); err != nil {
		t.Fatal(err)
	}
	want := `a: "true"
b: "1.0"
c: "null"
d: plain
e: |-
  line1
  line2
f: []
g: 3
`
	if buf.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestSummaryTable(t *testing.T) {
	items := []client.DeploymentSummary{
		{Id: "hello-2", Tenant: "demo", Application: "hello", Environment: "staging", State: client.DeploymentStatePending,
			CurrentStep: "deploy", Requester: "token:ci", CreatedAt: t0, StartedAt: t0.Add(time.Second),
			Artifact: client.ArtifactDetail{Version: "1.1.0"}},
		{Id: "hello-1", Tenant: "demo", Application: "hello", Environment: "staging", State: client.DeploymentStateSuccess,
			DryRun: true, Requester: "oidc:alice", CreatedAt: t0, StartedAt: t0, FinishedAt: t0.Add(75 * time.Second),
			Artifact: client.ArtifactDetail{Version: "1.0.0"}},
	}
	var buf bytes.Buffer
	if err := summaryTable(&buf, items); err != nil {
		t.Fatal(err)
	}
	want := `ID       DEPLOYMENT          STATE              VERSION  REQUESTER   CREATED               DURATION
hello-2  demo/hello/staging  PENDING (deploy)   1.1.0    token:ci    2025-01-02T03:04:05Z  -
hello-1  demo/hello/staging  SUCCESS [dry run]  1.0.0    oidc:alice  2025-01-02T03:04:05Z  1m15s
`
	if buf.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
	buf.Reset()
	if err := summaryTable(&buf, nil); err != nil || buf.String() != "No deploys.\n" {
		t.Fatalf("empty: %q %v", buf.String(), err)
	}
}

func TestValidateView(t *testing.T) {
	d := &client.SubmittedDeployment{
		DeploymentDetail: *fixedDeployment(),
		Labels:           []client.KeyValue{{Key: "team", Value: "web"}},
		Plan: client.Plan{Steps: []client.PlannedStep{
			{Name: "config", Type: "standard", MaxRetries: 0, TimeoutSeconds: 60, Mandatory: true},
			{Name: "deploy", Type: "standard", MaxRetries: 3, TimeoutSeconds: 600},
		}},
		Effective: client.EffectiveDeploy{Plugin: "local", Targets: []client.Target{{Path: "/srv/hello", Name: "/srv/hello"}},
			Params: []client.KeyValue{{Key: "keep", Value: "3"}}, HealthChecks: []string{"http://127.0.0.1:9/health"},
			ConfigSource: "envconfig/demo/hello/staging.yml", ConfigRevision: "feedfacecafebeef0000",
			Rollback: client.RollbackPolicy{Enabled: true, On: []string{"post-test", "activation"}}},
	}
	v := toValidateView(d)
	var buf bytes.Buffer
	if err := writeJSON(&buf, v); err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{`"valid": true`, `"max_retries": 3`, `"timeout_seconds": 600`, `"plugin": "local"`,
		`"keep": "3"`, `"secret_names": []`, `"requires": []`, `"team": "web"`,
		"\"rollback\": {\n      \"enabled\": true,\n      \"on\": [\n        \"post-test\",\n        \"activation\"\n      ]\n    }"} {
		if !strings.Contains(buf.String(), frag) {
			t.Errorf("json lacks %s:\n%s", frag, buf.String())
		}
	}
	buf.Reset()
	if err := v.table(&buf); err != nil {
		t.Fatal(err)
	}
	want := `The descriptor is valid: nothing was enqueued.

Deployment  demo/hello/staging
Requester   token:ci
Artifact    hello 1.0.0 (tarball) from file:///a/hello.tgz
SHA-256     0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef

Effective deploy
  Plugin         local
  Targets        /srv/hello
  Params         keep=3
  Health checks  http://127.0.0.1:9/health
  Configuration  envconfig/demo/hello/staging.yml @ feedfacecafe
  Rollback       on failure of post-test, activation

Plan
  #  STEP    TYPE      RETRIES  TIMEOUT  MANDATORY
  1  config  standard  0        1m00s    yes
  2  deploy  standard  3        10m00s   no
`
	if buf.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", buf.String(), want)
	}

	// No policy: off, and an empty list in JSON.
	d.Effective.Rollback = client.RollbackPolicy{}
	v = toValidateView(d)
	buf.Reset()
	if err := writeJSON(&buf, v); err != nil || !strings.Contains(buf.String(), "\"rollback\": {\n      \"enabled\": false,\n      \"on\": []\n    }") {
		t.Errorf("json without a policy (%v):\n%s", err, buf.String())
	}
	buf.Reset()
	if err := v.table(&buf); err != nil || !strings.Contains(buf.String(), "  Rollback       off\n") {
		t.Errorf("table without a policy (%v):\n%s", err, buf.String())
	}
}

// TestValidateViewOfCustomSteps: validate shows a custom step's type and
// its spec_hash (what pipeline.custom.revoked_specs takes), in a column
// of its own only when the plan has one.
func TestValidateViewOfCustomSteps(t *testing.T) {
	h := strings.Repeat("3b0f", 16)
	d := &client.SubmittedDeployment{
		DeploymentDetail: *fixedDeployment(),
		Plan: client.Plan{Steps: []client.PlannedStep{
			{Name: "config", Type: "standard", TimeoutSeconds: 60, Mandatory: true},
			{Name: "db-migrate", Type: "command", SpecHash: &h, TimeoutSeconds: 900},
			{Name: "deploy", Type: "standard", MaxRetries: 3, TimeoutSeconds: 600, Mandatory: true},
		}},
	}
	v := toValidateView(d)
	var buf bytes.Buffer
	if err := writeJSON(&buf, v); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"type": "command",`+"\n      \"spec_hash\": \""+h+`"`) || strings.Count(buf.String(), "spec_hash") != 1 {
		t.Errorf("json:\n%s", buf.String())
	}
	buf.Reset()
	if err := v.table(&buf); err != nil {
		t.Fatal(err)
	}
	want := "Plan\n" +
		"  #  STEP        TYPE      RETRIES  TIMEOUT  MANDATORY  SPEC HASH\n" +
		"  1  config      standard  0        1m00s    yes        -\n" +
		"  2  db-migrate  command   0        15m00s   no         " + h + "\n" +
		"  3  deploy      standard  3        10m00s   yes        -\n"
	if !strings.HasSuffix(buf.String(), want) {
		t.Errorf("table:\n%s\nwant it to end with:\n%s", buf.String(), want)
	}
}

func TestDurations(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{850 * time.Millisecond, "850ms"},
		{1200 * time.Millisecond, "1.2s"},
		{42 * time.Second, "42s"},
		{185 * time.Second, "3m05s"},
		{62 * time.Minute, "1h02m"},
	}
	for _, tt := range tests {
		if got := duration(tt.d); got != tt.want {
			t.Errorf("duration(%s) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestLogLineFormats(t *testing.T) {
	l := client.LogLineDetail{Seq: 7, Time: t0.Add(123 * time.Millisecond), Step: "deploy", Level: "info", Message: "unpacked 3 files"}
	tests := []struct {
		format format
		want   string
	}{
		{formatTable, "2025-01-02T03:04:05.123Z INFO  deploy: unpacked 3 files\n"},
		{formatJSON, `{"seq":7,"time":"2025-01-02T03:04:05.123Z","step":"deploy","level":"info","message":"unpacked 3 files"}` + "\n"},
		{formatYAML, "- seq: 7\n  time: \"2025-01-02T03:04:05.123Z\"\n  step: deploy\n  level: info\n  message: unpacked 3 files\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		a := &app{stdout: &buf, format: tt.format}
		if err := a.printLogLine(l); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tt.want {
			t.Errorf("%s: got %q, want %q", tt.format, buf.String(), tt.want)
		}
	}
}
