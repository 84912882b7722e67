package postgres_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// Advance writes an end without inventory effects in one statement, and
// anything else step by step: both must leave the same record. ReadInService
// takes the general path; with nothing in service it reads nothing.
func TestAdvanceInOneStatementMatchesTheGeneralPath(t *testing.T) {
	f := newFixture(t)
	t0 := time.Date(2026, 4, 5, 6, 7, 8, 0, time.UTC)
	eff := deploy.Effective{Tenant: "demo", Application: "app", Environment: "e", Plugin: "local", ConfigRevision: "r2"}
	type call struct {
		done, next string // operations as op names them, "" for none
		failed     bool
		fx         deploy.StepEffects
		honour     bool
		cancel     bool // request a cancel before the call
	}
	tests := []struct {
		name  string
		calls []call
	}{
		{"a step after another", []call{{next: "config"}, {done: "config", next: "artifacts", honour: true}, {done: "artifacts", failed: true}}},
		{"an end with no start recorded", []call{{done: "deploy@web-1"}}},
		{"a restart", []call{{next: "config"}, {next: "config"}, {done: "config", next: "deploy"}}},
		{"cancel honoured", []call{{next: "config"}, {done: "config", next: "artifacts", honour: true, cancel: true}}},
		{"cancel not honoured", []call{{next: "deploy"}, {done: "deploy", next: "rollback:deploy", cancel: true}}},
		{"effects", []call{{next: "config"}, {done: "config", next: "checkpoint:deploy",
			fx: deploy.StepEffects{Effective: &eff, SHA256: "cafe", Rollback: deploy.RollbackRunning}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var records [2][]deploy.Step
			var deploys [2]*deploy.Deployment
			var begun [2][]*deploy.Begun
			for i, general := range []bool{false, true} {
				id := slug(tt.name) + map[bool]string{false: "-once", true: "-general"}[general]
				f.pending(id, id)
				for n, c := range tt.calls {
					if c.cancel {
						f.cancel(id)
					}
					at := t0.Add(time.Duration(n) * time.Second)
					var done, next *deploy.Step
					if c.done != "" {
						state := deploy.StepSuccess
						if c.failed {
							state = deploy.StepError
						}
						done = op(id, c.done, state)
						done.Attempts, done.FinishedAt, done.Output, done.Error = 2, &at, map[string]string{"k": "v"}, "e"
					}
					if c.next != "" {
						next = op(id, c.next, deploy.StepRunning)
						next.StartedAt = &at
					}
					b, err := f.advance(done, c.fx, next, deploy.BeginOptions{HonourCancel: c.honour, ReadInService: general})
					if err != nil {
						t.Fatalf("call %d (general %v): %v", n, general, err)
					}
					begun[i] = append(begun[i], b)
				}
				d := f.get(id)
				for _, s := range d.Steps {
					s.DeploymentID = ""
					records[i] = append(records[i], s)
				}
				// A run and its compensation tie in the order of Get.
				slices.SortFunc(records[i], func(a, b deploy.Step) int { return strings.Compare(a.Key().Name(), b.Key().Name()) })
				d.ID, d.Environment, d.Descriptor, d.Effective.Environment, d.UpdatedAt, d.CreatedAt, d.StartedAt, d.Steps =
					"", "", deploy.Descriptor{}, "", time.Time{}, time.Time{}, nil, nil
				deploys[i] = d
			}
			if !reflect.DeepEqual(begun[0], begun[1]) {
				t.Errorf("Advance returned\n%+v in one statement\n%+v step by step", begun[0], begun[1])
			}
			if !reflect.DeepEqual(records[0], records[1]) {
				t.Errorf("records\n%+v in one statement\n%+v step by step", records[0], records[1])
			}
			if !reflect.DeepEqual(deploys[0], deploys[1]) {
				t.Errorf("deploy\n%+v in one statement\n%+v step by step", deploys[0], deploys[1])
			}
		})
	}
}
