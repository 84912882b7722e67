package postgres_test

import (
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// One release in service per environment, the one before it and its last
// failure: later successes replace the release (the replaced one becomes
// the one before), later failures the failure; dry runs and cancels leave
// all three; an environment with only a failure has an entry.
func TestInventory(t *testing.T) {
	f := newFixture(t)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	runs := []struct {
		id, tenant, env string
		state           deploy.State
		dryRun          bool
		at              time.Duration
	}{
		{"s1", "demo", "staging", deploy.StateSuccess, false, 0},
		{"s2", "demo", "staging", deploy.StateSuccess, false, 1},
		{"s3", "demo", "staging", deploy.StateError, false, 2},
		{"s4", "demo", "staging", deploy.StateSuccess, true, 3},
		{"p1", "demo", "prod", deploy.StateSuccess, false, 4},
		{"p2", "demo", "prod", deploy.StateCancelled, false, 5},
		{"q1", "demo", "qa", deploy.StateMaxRecoveryAttemptsExceeded, false, 7},
		{"q2", "demo", "qa", deploy.StateError, true, 8},
		// Recorded after q1 but ended before it: q1 stays the last failure.
		{"q3", "demo", "qa", deploy.StateError, false, 6},
		{"o1", "other", "staging", deploy.StateSuccess, false, 9},
		// Three releases in a row: the one before is the second, not the first.
		{"d1", "demo", "dev", deploy.StateSuccess, false, 10},
		{"d2", "demo", "dev", deploy.StateSuccess, false, 11},
		{"d3", "demo", "dev", deploy.StateSuccess, false, 12},
	}
	for _, r := range runs {
		d := deployment(r.id, r.env)
		d.Tenant, d.DryRun = r.tenant, r.dryRun
		o := deploy.Outcome{State: r.state, FinishedAt: base.Add(r.at * time.Minute), InService: true, SHA256: "sha-" + r.id}
		if r.state != deploy.StateSuccess {
			o.Error, o.FailedStep, o.Rollback = "failed "+r.id, deploy.StepDeploy, deploy.RollbackDisabled
		}
		f.ended(d, o)
	}
	art := deployment("", "").Artifact
	at := func(m time.Duration) time.Time { return base.Add(m * time.Minute) }
	demo := []deploy.InventoryEntry{
		{Tenant: "demo", Application: "app", Environment: "dev", DeploymentID: "d3", Artifact: art, SHA256: "sha-d3",
			DeployedAt: at(12), DeployedBy: "token:ci", Previous: &deploy.PreviousRelease{DeploymentID: "d2", Artifact: art,
				SHA256: "sha-d2", DeployedAt: at(11), DeployedBy: "token:ci"}},
		{Tenant: "demo", Application: "app", Environment: "prod", DeploymentID: "p1", Artifact: art, SHA256: "sha-p1",
			DeployedAt: at(4), DeployedBy: "token:ci"},
		{Tenant: "demo", Application: "app", Environment: "qa", LastFailure: &deploy.LastFailure{DeploymentID: "q1",
			Step: deploy.StepDeploy, Error: "failed q1", FinishedAt: at(7), Rollback: deploy.RollbackDisabled}},
		{Tenant: "demo", Application: "app", Environment: "staging", DeploymentID: "s2", Artifact: art, SHA256: "sha-s2",
			DeployedAt: at(1), DeployedBy: "token:ci", Previous: &deploy.PreviousRelease{DeploymentID: "s1", Artifact: art,
				SHA256: "sha-s1", DeployedAt: at(0), DeployedBy: "token:ci"},
			LastFailure: &deploy.LastFailure{DeploymentID: "s3",
				Step: deploy.StepDeploy, Error: "failed s3", FinishedAt: at(2), Rollback: deploy.RollbackDisabled}},
	}
	other := []deploy.InventoryEntry{{Tenant: "other", Application: "app", Environment: "staging", DeploymentID: "o1",
		Artifact: art, SHA256: "sha-o1", DeployedAt: at(9), DeployedBy: "token:ci"}}
	tests := []struct {
		tenant string
		want   []deploy.InventoryEntry
	}{
		{"demo", demo},
		{"other", other},
		{"", append(append([]deploy.InventoryEntry{}, demo...), other...)},
		{"nobody", []deploy.InventoryEntry{}},
	}
	for _, tt := range tests {
		t.Run("tenant "+tt.tenant, func(t *testing.T) {
			got, err := f.store.Inventory(f.ctx, tt.tenant)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("inventory\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
