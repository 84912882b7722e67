package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

const nightlyDescriptor = `apiVersion: manent/v1
id: hello-nightly
application: hello
environment: staging
artifact:
  type: application
  name: hello
  version: 1.0.0
  source: file:hello-1.0.0.tar.gz
schedule:
  cron: "%s"
`

// graphQL posts a query and decodes data into out; it returns the errors'
// codes.
func graphQL(t *testing.T, srv *Server, token, query string, vars map[string]any, out any) []string {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest("POST", srv.URL()+"/graphql", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var body struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	var codes []string
	for _, e := range body.Errors {
		codes = append(codes, e.Extensions.Code)
	}
	if out != nil && len(body.Data) > 0 && string(body.Data) != "null" {
		if err := json.Unmarshal(body.Data, out); err != nil {
			t.Fatalf("decode data %s: %v", body.Data, err)
		}
	}
	return codes
}

type scheduleList struct {
	Schedules []struct {
		Name           string     `json:"name"`
		Cron           string     `json:"cron"`
		State          string     `json:"state"`
		NextTick       *time.Time `json:"nextTick"`
		LastDeployment *string    `json:"lastDeployment"`
	} `json:"schedules"`
}

func TestRecurringScheduleOverREST(t *testing.T) {
	configPath, _ := demoConfig(t)
	srv := startServer(t, configPath)
	base := srv.URL() + "/api/v1/deployments"

	submits := []struct {
		name string
		cron string
	}{
		{name: "create", cron: "0 3 * * *"},
		// Resubmitting the descriptor updates the schedule of that name.
		{name: "update", cron: "30 4 * * *"},
	}
	for _, s := range submits {
		resp, body := request(t, "POST", base, demoTokens["ci"], fmt.Sprintf(nightlyDescriptor, s.cron))
		var got scheduled
		if resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &got) != nil {
			t.Fatalf("%s: %d %s", s.name, resp.StatusCode, body)
		}
		sc := got.Schedule
		if got.ID != "hello-nightly" || got.State != deploy.StateScheduled || s.name == "create" && !got.Created ||
			sc.Name != "hello-nightly" || sc.Cron != s.cron || sc.TimeZone != "UTC" || sc.State != deploy.ScheduleScheduled ||
			sc.Tenant != "demo" || sc.Application != "hello" || sc.Environment != "staging" || sc.Requester != "token:ci" ||
			sc.LastTick != nil || sc.LastDeployment != nil {
			t.Fatalf("%s: body %s", s.name, body)
		}
		if strings.Contains(string(body), "template") || strings.Contains(string(body), "status_url") {
			t.Errorf("%s: body shows more than the schedule: %s", s.name, body)
		}
	}

	// The schedule is not a deploy: it has no status of its own.
	if resp, body := request(t, "GET", base+"/hello-nightly", demoTokens["admin"], ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("status of the schedule: %d %s", resp.StatusCode, body)
	}

	// The schedule's workflow computes the next tick: 04:30 UTC, after now.
	deadline := time.Now().Add(60 * time.Second)
	var list scheduleList
	for {
		list = scheduleList{}
		if codes := graphQL(t, srv, demoTokens["viewer"], `{ schedules { name cron state nextTick lastDeployment } }`, nil, &list); codes != nil {
			t.Fatalf("schedules: %v", codes)
		}
		if len(list.Schedules) != 1 {
			t.Fatalf("schedules = %+v", list.Schedules)
		}
		if list.Schedules[0].NextTick != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond) // polling, bounded by the deadline
	}
	got := list.Schedules[0]
	if got.Name != "hello-nightly" || got.Cron != "30 4 * * *" || got.State != "SCHEDULED" || got.LastDeployment != nil {
		t.Fatalf("schedule = %+v", got)
	}
	if got.NextTick == nil || !got.NextTick.After(time.Now()) || got.NextTick.UTC().Format("15:04:05") != "04:30:00" {
		t.Fatalf("nextTick = %v", got.NextTick)
	}

	deletes := []struct {
		name, token string
		code        string
	}{
		{name: "read only", token: demoTokens["viewer"], code: "FORBIDDEN"},
		{name: "submitter", token: demoTokens["ci"]},
		{name: "already deleted", token: demoTokens["ci"], code: "NOT_FOUND"},
	}
	for _, d := range deletes {
		var out struct {
			DeleteSchedule bool `json:"deleteSchedule"`
		}
		codes := graphQL(t, srv, d.token, `mutation($n: String!) { deleteSchedule(name: $n) }`, map[string]any{"n": "hello-nightly"}, &out)
		if d.code != "" && (len(codes) != 1 || codes[0] != d.code) || d.code == "" && (codes != nil || !out.DeleteSchedule) {
			t.Errorf("delete %s: %v %+v", d.name, codes, out)
		}
	}
	list = scheduleList{}
	if codes := graphQL(t, srv, demoTokens["admin"], `{ schedules { name } }`, nil, &list); codes != nil || len(list.Schedules) != 0 {
		t.Errorf("after delete: %v %+v", codes, list.Schedules)
	}

	// Submitting it again creates it afresh.
	resp, body := request(t, "POST", base, demoTokens["ci"], fmt.Sprintf(nightlyDescriptor, "0 3 * * *"))
	var again scheduled
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &again) != nil || !again.Created {
		t.Fatalf("resubmit after delete: %d %s", resp.StatusCode, body)
	}
}

func TestSubmitStatusOfASchedule(t *testing.T) {
	next := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	sc := &deploy.RecurringSchedule{Name: "hello-nightly", Tenant: "demo", Application: "hello", Environment: "staging",
		Cron: "0 3 * * *", TimeZone: "Europe/Paris", Requester: "token:ci", State: deploy.ScheduleScheduled,
		Template: []byte(`{"plan":"captured"}`), NextTick: &next}
	tests := []struct {
		name     string
		schedule *deploy.RecurringSchedule
		status   int
		location string
	}{
		{name: "deploy", status: http.StatusAccepted, location: "/api/v1/deployments/hello-nightly"},
		{name: "recurring schedule", schedule: sc, status: http.StatusCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &fakeService{submit: func(context.Context, []byte, deploy.SubmitOptions) (*deploy.Submission, error) {
				d := deploy.Deployment{ID: "hello-nightly", State: deploy.StateEnqueued}
				if tt.schedule != nil {
					d.State = deploy.StateScheduled
				}
				return &deploy.Submission{Deployment: d, Created: true, Schedule: tt.schedule}, nil
			}}
			srv := newRouterServer(t, svc, &fakeEvents{})
			resp, body := do(t, "POST", srv.URL+"/api/v1/deployments", "ci", "x")
			if resp.StatusCode != tt.status || resp.Header.Get("Location") != tt.location {
				t.Fatalf("%d %q %s", resp.StatusCode, resp.Header.Get("Location"), body)
			}
			if tt.schedule == nil {
				return
			}
			want := `{"id":"hello-nightly","state":"SCHEDULED","created":true,"schedule":{"name":"hello-nightly","tenant":"demo",` +
				`"application":"hello","environment":"staging","cron":"0 3 * * *","timezone":"Europe/Paris","requester":"token:ci",` +
				`"state":"SCHEDULED","created_at":"0001-01-01T00:00:00Z","updated_at":"0001-01-01T00:00:00Z","last_tick":null,` +
				`"next_tick":"2026-12-01T03:00:00Z","last_deployment":null,"last_error":null}}`
			var got bytes.Buffer
			if err := json.Compact(&got, body); err != nil || got.String() != want {
				t.Errorf("body\n got %s\nwant %s", body, want)
			}
		})
	}
}
