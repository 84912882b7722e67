package graph

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

func TestDeploymentsConnection(t *testing.T) {
	var got deploy.ListFilter
	after := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	svc := &fakeService{list: func(_ context.Context, f deploy.ListFilter) (deploy.Page, error) {
		got = f
		a, b := newDeployBoard().d, newDeployBoard().d
		b.ID = "hello-2"
		return deploy.Page{Items: []deploy.Deployment{a, b}, EndCursor: "c2", HasNextPage: true, Cursors: []string{"c1", "c2"}}, nil
	}}
	srv := newTestServer(t, svc, newFakeEvents())
	resp := srv.query(t, "ci", `query($after: Time) {
	  deployments(filter: {application: "hello", states: [SUCCESS, ERROR], createdAfter: $after, active: true}, first: 2, after: "c0") {
	    edges { cursor node { id } }
	    nodes { id }
	    pageInfo { hasNextPage endCursor }
	  }
	}`, map[string]any{"after": after.Format(time.RFC3339)})
	if len(resp.Errors) > 0 {
		t.Fatalf("errors: %+v", resp.Errors)
	}
	if got.Application != "hello" || got.First != 2 || got.After != "c0" || !got.ActiveOnly ||
		len(got.States) != 2 || got.States[1] != deploy.StateError || got.CreatedAfter == nil || !got.CreatedAfter.Equal(after) {
		t.Errorf("filter = %+v", got)
	}
	var data struct {
		Edges []struct {
			Cursor string
			Node   struct{ ID string }
		}
		PageInfo struct {
			HasNextPage bool
			EndCursor   string
		}
	}
	if err := json.Unmarshal(resp.Data["deployments"], &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Edges) != 2 || data.Edges[0].Cursor != "c1" || data.Edges[1].Node.ID != "hello-2" ||
		!data.PageInfo.HasNextPage || data.PageInfo.EndCursor != "c2" {
		t.Errorf("connection = %s", resp.Data["deployments"])
	}
}

func TestCanCancel(t *testing.T) {
	tests := []struct {
		name      string
		state     deploy.State
		requested bool
		allowed   bool
		want      bool
	}{
		{"running and allowed", deploy.StatePending, false, true, true},
		{"not allowed", deploy.StatePending, false, false, false},
		{"already requested", deploy.StatePending, true, true, false},
		{"finished", deploy.StateSuccess, false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			board := newDeployBoard()
			board.d.State, board.d.CancelRequested = tt.state, tt.requested
			svc := board.service()
			svc.can = func(_ context.Context, res deploy.Resource, perm string) bool {
				return tt.allowed && perm == deploy.PermCancel && res.Application == "hello"
			}
			srv := newTestServer(t, svc, newFakeEvents())
			resp := srv.query(t, "ci", `{ deployment(id: "hello-1") { canCancel } }`, nil)
			want := `{"canCancel":false}`
			if tt.want {
				want = `{"canCancel":true}`
			}
			if len(resp.Errors) > 0 || string(resp.Data["deployment"]) != want {
				t.Errorf("got %s %+v, want %s", resp.Data["deployment"], resp.Errors, want)
			}
		})
	}
}

// TestStartAt: a DELAYED deploy says when it starts, the descriptor's
// schedule.at; any other has none.
func TestStartAt(t *testing.T) {
	at := time.Date(2026, 12, 1, 14, 30, 0, 0, time.FixedZone("CET", 3600))
	tests := []struct {
		name     string
		schedule *deploy.Schedule
		want     string
	}{
		{"schedule.at, in UTC", &deploy.Schedule{At: &at}, `"2026-12-01T13:30:00Z"`},
		{"a recurring schedule's tick", &deploy.Schedule{Cron: "0 3 * * *"}, `null`},
		{"no schedule", nil, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newDeployBoard()
			b.d.State = deploy.StateDelayed
			b.d.Descriptor.Schedule = tt.schedule
			resp := newTestServer(t, b.service(), newFakeEvents()).query(t, "ci", `{ deployment(id: "hello-1") { state startAt } }`, nil)
			if len(resp.Errors) > 0 {
				t.Fatalf("errors: %+v", resp.Errors)
			}
			var got struct {
				State   string
				StartAt json.RawMessage
			}
			if err := json.Unmarshal(resp.Data["deployment"], &got); err != nil {
				t.Fatal(err)
			}
			if got.State != "DELAYED" || string(got.StartAt) != tt.want {
				t.Errorf("got %s, want startAt %s", resp.Data["deployment"], tt.want)
			}
		})
	}
}

// TestRolloutWithoutRollout: Deployment.rollout is null for a deploy without
// rollout, as the status JSON leaves its section out.
func TestRolloutWithoutRollout(t *testing.T) {
	b := newDeployBoard()
	resp := newTestServer(t, b.service(), newFakeEvents()).query(t, "ci", `{ deployment(id: "hello-1") { rollout { state currentWave } status } }`, nil)
	if len(resp.Errors) > 0 {
		t.Fatalf("errors: %+v", resp.Errors)
	}
	var got struct {
		Rollout json.RawMessage
		Status  map[string]json.RawMessage
	}
	if err := json.Unmarshal(resp.Data["deployment"], &got); err != nil {
		t.Fatal(err)
	}
	if string(got.Rollout) != "null" {
		t.Errorf("rollout = %s, want null", got.Rollout)
	}
	if r, ok := got.Status["rollout"]; ok {
		t.Errorf("status.rollout = %s, want it left out", r)
	}
}
