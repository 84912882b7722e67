package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
)

var nightlyNext = time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)

func nightlySchedule() client.ScheduleDetail {
	return client.ScheduleDetail{Name: "hello-nightly", Tenant: "demo", Application: "hello", Environment: "staging",
		Cron: "0 3 * * *", Timezone: "UTC", Requester: "token:ci", State: client.ScheduleStateScheduled,
		CreatedAt: t0, UpdatedAt: t0, NextTick: &nightlyNext}
}

const cronDescriptor = descriptor + "id: hello-nightly\nschedule: {cron: \"0 3 * * *\"}\n"

func TestDeployOfACronDescriptor(t *testing.T) {
	pending := nightlySchedule()
	pending.NextTick, pending.Timezone = nil, "Europe/Paris"
	tests := []struct {
		name     string
		schedule client.ScheduleDetail
		created  bool
		args     []string
		stdout   string
		stderr   string
	}{
		{name: "created", schedule: nightlySchedule(), created: true, stdout: "hello-nightly\n",
			stderr: "schedule hello-nightly created (cron 0 3 * * * in UTC, next tick 2026-12-01T03:00:00Z)\n"},
		{name: "updated, next tick not computed yet", schedule: pending, stdout: "hello-nightly\n",
			stderr: "schedule hello-nightly updated (cron 0 3 * * * in Europe/Paris, next tick pending)\n"},
		{name: "json prints the schedule", schedule: nightlySchedule(), created: true, args: []string{"-o", "json"},
			stdout: `"next_tick": "2026-12-01T03:00:00Z"`,
			stderr: "schedule hello-nightly created (cron 0 3 * * * in UTC, next tick 2026-12-01T03:00:00Z)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t)
			srv.Handle("SubmitDeployment", func(clienttest.Request) (any, *clienttest.Error) {
				d := deployment("hello-nightly", client.DeploymentStateScheduled)
				return map[string]any{"submitDeployment": map[string]any{"created": tt.created, "validated": false,
					"schedule": tt.schedule, "deployment": &client.SubmittedDeployment{DeploymentDetail: d}}}, nil
			})
			ghOut := filepath.Join(t.TempDir(), "github_output")
			env := map[string]string{envServer: srv.URL, envGitHubOutput: ghOut}
			r := runCLI(t, env, "", append([]string{"deploy", "-f", writeFile(t, "d.yml", cronDescriptor)}, tt.args...)...)
			if r.code != 0 || r.stderr != tt.stderr {
				t.Fatalf("exit %d, stderr %q, want %q", r.code, r.stderr, tt.stderr)
			}
			if len(tt.args) == 0 && r.stdout != tt.stdout || len(tt.args) > 0 && !strings.Contains(r.stdout, tt.stdout) {
				t.Errorf("stdout %q, want %q", r.stdout, tt.stdout)
			}
			// Nothing to follow: the ticks start deploys of their own.
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want the submission alone", n)
			}
			if gh, err := os.ReadFile(ghOut); err != nil || string(gh) != "state=SCHEDULED\nschedule=hello-nightly\n" {
				t.Errorf("GITHUB_OUTPUT %q, %v", gh, err)
			}
		})
	}
}

func TestScheduleList(t *testing.T) {
	ticked := nightlySchedule()
	ticked.Name, ticked.Cron, ticked.Timezone, ticked.LastDeployment = "hello-weekly", "0 3 * * 1", "Europe/Paris", "hello-weekly@20261130-020000"
	pending := nightlySchedule()
	pending.Name, pending.NextTick = "hello-zz", nil
	// Its last tick found its deploy ID taken: the deploy of the tick before stays the last.
	failed := ticked
	failed.Name, failed.LastDeployment = "hello-x", "hello-x@20261130-020000"
	failed.LastError = `deploy ID "hello-x@20261201-020000" is already taken by a deploy manent did not create for a tick of schedule hello-x`
	srv := clienttest.New(t)
	srv.Handle("ListSchedules", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"schedules": []client.ScheduleDetail{nightlySchedule(), ticked, failed, pending}}, nil
	})
	env := map[string]string{envServer: srv.URL}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "table", want: "" +
			"NAME           DEPLOYMENT          CRON       TIMEZONE      NEXT TICK             LAST DEPLOYMENT               LAST ERROR\n" +
			"hello-nightly  demo/hello/staging  0 3 * * *  UTC           2026-12-01T03:00:00Z  -                             -\n" +
			"hello-weekly   demo/hello/staging  0 3 * * 1  Europe/Paris  2026-12-01T03:00:00Z  hello-weekly@20261130-020000  -\n" +
			"hello-x        demo/hello/staging  0 3 * * 1  Europe/Paris  2026-12-01T03:00:00Z  hello-x@20261130-020000       " + failed.LastError + "\n" +
			"hello-zz       demo/hello/staging  0 3 * * *  UTC           pending               -                             -\n"},
		{name: "json", args: []string{"-o", "json"}, want: `"last_deployment": "hello-weekly@20261130-020000"`},
		{name: "json error", args: []string{"-o", "json"}, want: `"last_error": "deploy ID \"hello-x@20261201-020000\" is already taken`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, env, "", append([]string{"schedule", "list"}, tt.args...)...)
			if r.code != 0 || tt.args == nil && r.stdout != tt.want || tt.args != nil && !strings.Contains(r.stdout, tt.want) {
				t.Fatalf("exit %d\n%s\nwant\n%s%s", r.code, r.stdout, tt.want, r.stderr)
			}
		})
	}
}

func TestScheduleDelete(t *testing.T) {
	srv := clienttest.New(t)
	srv.Handle("DeleteSchedule", func(r clienttest.Request) (any, *clienttest.Error) {
		switch r.Variables["name"] {
		case "hello-nightly":
			return map[string]any{"deleteSchedule": true}, nil
		case "prod-nightly":
			return nil, &clienttest.Error{Message: "deployment.submit required on demo/hello/prod", Code: "FORBIDDEN"}
		}
		return nil, &clienttest.Error{Message: "schedule not found", Code: "NOT_FOUND"}
	})
	env := map[string]string{envServer: srv.URL}
	tests := []struct {
		args   []string
		code   int
		stdout string
	}{
		{args: []string{"hello-nightly"}, stdout: "schedule hello-nightly deleted\n"},
		{args: []string{"hello-nightly", "-o", "json"}, stdout: "{\n  \"name\": \"hello-nightly\",\n  \"deleted\": true\n}\n"},
		{args: []string{"nope"}, code: 2},
		{args: []string{"prod-nightly"}, code: 3},
		{args: []string{}, code: 2},
	}
	for _, tt := range tests {
		r := runCLI(t, env, "", append([]string{"schedule", "delete"}, tt.args...)...)
		if r.code != tt.code || r.stdout != tt.stdout {
			t.Errorf("%v: exit %d, stdout %q\n%s", tt.args, r.code, r.stdout, r.stderr)
		}
	}
}
