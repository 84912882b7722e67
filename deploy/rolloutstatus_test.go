package deploy

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestStatusRolloutJSON holds the rollout section of the status JSON to the
// shape the REST API, `manent status -o json` and the CI outcome print:
// snake_case, times in RFC 3339 UTC, the section left out without rollout.
func TestStatusRolloutJSON(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	later := at.Add(90 * time.Second)
	wave, release, value := "eu", "1.2.0", 0.0042
	rollout := &RolloutStatus{
		State: RolloutRunning, CurrentWave: &wave,
		Waves: []RolloutWaveStatus{{
			Name: "eu", State: WaveBaking, Targets: []string{"eu-1"},
			Batches: []RolloutBatchStatus{{Index: 1, Targets: []string{"eu-1"}, State: StepSuccess, StartedAt: &at, FinishedAt: &later}},
			Bake:    &RolloutBake{Duration: 2 * time.Minute, Seconds: 120, Until: &later},
			Gate: &RolloutGate{State: GatePass, At: &later,
				Checks: []RolloutGateCheck{{Name: "errors", State: GatePass, Value: &value, Detail: "0.0042 is within max 0.01"}}},
		}},
		Targets: []RolloutTargetStatus{
			{Name: "eu-1", Labels: map[string]string{"region": "eu"}, Outcome: OutcomeTargeted, Wave: "eu", Batch: 1, State: StepSuccess, Release: &release},
			{Name: "us-2", Outcome: OutcomeExcluded, State: StepSkipped},
		},
	}
	const want = `{"state":"running","current_wave":"eu","waves":[{"name":"eu","state":"baking","targets":["eu-1"],` +
		`"batches":[{"index":1,"targets":["eu-1"],"state":"SUCCESS","started_at":"2026-03-01T10:00:00Z","finished_at":"2026-03-01T10:01:30Z"}],` +
		`"bake":{"seconds":120,"until":"2026-03-01T10:01:30Z"},` +
		`"gate":{"state":"pass","checks":[{"name":"errors","state":"pass","value":0.0042,"detail":"0.0042 is within max 0.01"}],"at":"2026-03-01T10:01:30Z"}}],` +
		`"targets":[{"name":"eu-1","labels":{"region":"eu"},"outcome":"targeted","wave":"eu","batch":1,"state":"SUCCESS","release":"1.2.0","error":null},` +
		`{"name":"us-2","outcome":"excluded","state":"SKIPPED","release":null,"error":null}]}`

	tests := []struct {
		name    string
		rollout *RolloutStatus
		want    string // the rollout member of the status; "" when absent
	}{
		{"a deploy without rollout", nil, ""},
		{"a rollout baking its first wave", rollout, want},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := NewStatus(&Deployment{ID: "hello-1", State: StatePending, CreatedAt: at})
			st.Rollout = tt.rollout
			b, err := json.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(b, &fields); err != nil {
				t.Fatal(err)
			}
			got, ok := fields["rollout"]
			if tt.want == "" {
				if ok {
					t.Fatalf("status has rollout %s, want none", got)
				}
				return
			}
			if string(got) != tt.want {
				t.Errorf("rollout =\n%s\nwant\n%s", got, tt.want)
			}
			if strings.Contains(string(got), "Duration") {
				t.Error("the bake's Go duration leaked into the JSON")
			}
		})
	}
}
