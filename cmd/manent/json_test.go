package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
)

var snakeCase = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)

// camelKeys lists the keys of a JSON document that are not snake_case, by
// path. Maps keyed by user data (outputs, exports) are not keys of the
// contract: none of the fixtures below has any.
func camelKeys(path string, v any) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if !snakeCase.MatchString(k) {
				out = append(out, path+"."+k)
			}
			out = append(out, camelKeys(path+"."+k, val)...)
		}
	case []any:
		for _, val := range x {
			out = append(out, camelKeys(path+"[]", val)...)
		}
	}
	return out
}

func shopRelease() client.ReleaseDetail {
	return client.ReleaseDetail{Id: "shop", State: client.ReleaseStateError, OnFailure: "rollback", Requester: "token:ci",
		CreatedAt: t0, FinishedAt: t0.Add(time.Minute), Error: "deploys did not succeed: api ended ERROR",
		Deploys: []client.ReleaseDeploy{
			{Name: "db", DeploymentId: "shop.db", State: client.DeploymentStateSuccess, After: []string{},
				RollbackState: "SUCCESS", RollbackDeploymentId: "shop.db.rollback"},
			{Name: "api", DeploymentId: "shop.api", State: client.DeploymentStateError, Error: "step deploy failed", After: []string{"db"}},
			{Name: "web", DeploymentId: "shop.web", After: []string{"api"}, RollbackState: "SKIPPED"},
		}}
}

// Every JSON the CLI prints is snake_case, as the status JSON of a deploy:
// releases and schedules too, whatever GraphQL names their fields.
func TestJSONIsSnakeCase(t *testing.T) {
	srv := clienttest.New(t)
	release := shopRelease()
	srv.Handle("GetRelease", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"release": release}, nil
	})
	srv.Handle("ReleaseExports", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"release": map[string]any{"deploys": []any{}}}, nil
	})
	srv.Handle("ListReleases", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"releases": map[string]any{"nodes": []client.ReleaseDetail{release},
			"pageInfo": map[string]any{"hasNextPage": false, "endCursor": ""}}}, nil
	})
	srv.Handle("CancelRelease", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"cancelRelease": release}, nil
	})
	srv.Handle("SubmitRelease", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"submitRelease": release}, nil
	})
	srv.Handle("ListSchedules", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"schedules": []client.ScheduleDetail{nightlySchedule()}}, nil
	})
	srv.Handle("SubmitDeployment", func(clienttest.Request) (any, *clienttest.Error) {
		d := deployment("hello-nightly", client.DeploymentStateScheduled)
		return map[string]any{"submitDeployment": map[string]any{"created": true, "validated": false,
			"schedule": nightlySchedule(), "deployment": &client.SubmittedDeployment{DeploymentDetail: d}}}, nil
	})
	env := map[string]string{envServer: srv.URL}
	releaseFile := writeFile(t, "release.yml", "apiVersion: manent/v1\nkind: Release\nid: shop\ndeploys: []\n")
	tests := []struct {
		name string
		args []string
		// want are texts the JSON holds, in its own words.
		want []string
	}{
		{"release status", []string{"release", "status", "shop"},
			[]string{`"deployment_id": "shop.api"`, `"on_failure": "rollback"`, `"rollback": {`, `"deployment_id": "shop.db.rollback"`, `"state": "SKIPPED"`}},
		{"release list", []string{"release", "list"}, []string{`"on_failure": "rollback"`, `"finished_at": "`}},
		{"release cancel", []string{"release", "cancel", "shop"}, []string{`"deployment_id": "shop.web"`}},
		{"release submit", []string{"release", "submit", "-f", releaseFile, "--no-wait"}, []string{`"created_at": "`}},
		{"schedule list", []string{"schedule", "list"}, []string{`"next_tick": "2026-12-01T03:00:00Z"`, `"state": "SCHEDULED"`}},
		{"deploy of a cron descriptor", []string{"deploy", "-f", writeFile(t, "d.yml", cronDescriptor)},
			[]string{`"next_tick": "2026-12-01T03:00:00Z"`, `"state": "SCHEDULED"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, env, "", append(tt.args, "-o", "json")...)
			if r.code != 0 && r.code != 1 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			var doc any
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
			}
			if bad := camelKeys("", doc); len(bad) > 0 {
				t.Errorf("keys not in snake_case: %v\n%s", bad, r.stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("JSON lacks %s:\n%s", w, r.stdout)
				}
			}
		})
	}
}
