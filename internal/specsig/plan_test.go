package specsig_test

import (
	"errors"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/specsig"
)

func keyring(t *testing.T, keys ...[]byte) *specsig.Keyring {
	t.Helper()
	k, err := specsig.New(keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// job is a deploy of shop in prod with a mandatory custom step, sealed.
func job(t *testing.T, id string) deploy.Job {
	t.Helper()
	j := deploy.Job{ID: id,
		Descriptor: deploy.Descriptor{Tenant: "demo", Application: "shop", Environment: "prod"},
		Effective:  deploy.Effective{Tenant: "demo", Application: "shop", Environment: "prod"},
		Plan:       planWith(spec())}
	j.Plan.Steps[1].Mandatory = true
	j.Plan.Steps = append(j.Plan.Steps, deploy.PlannedStep{Name: "deploy", Type: "standard", MaxRetries: 2, Timeout: time.Minute, Mandatory: true})
	if err := keyring(t).Seal(&j.Plan); err != nil {
		t.Fatal(err)
	}
	return j
}

// TestPlanSignature: the plan's signature covers what the deploy runs as
// (its ID, or the schedule of a tick), its application and environment,
// dry run or not, and its steps in order with their types, mandatory
// flags, retries, timeouts and spec hashes; every key verifies, the first
// signs, and without keys nothing is refused.
func TestPlanSignature(t *testing.T) {
	oldKey, newKey := key('o'), key('n')
	signed := func(t *testing.T, id, schedule string, keys ...[]byte) deploy.Job {
		j := job(t, id)
		keyring(t, keys...).SignPlan(&j, schedule)
		return j
	}
	tick := deploy.TickID("nightly", time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC))
	tests := []struct {
		name string
		keys [][]byte
		job  func(t *testing.T) deploy.Job
		want error // nil: accepted
	}{
		{name: "signed, verified by its key", keys: [][]byte{oldKey}, job: func(t *testing.T) deploy.Job { return signed(t, "d1", "", oldKey) }},
		{name: "rotation: the old key still verifies", keys: [][]byte{newKey, oldKey},
			job: func(t *testing.T) deploy.Job { return signed(t, "d1", "", oldKey) }},
		{name: "rotation done: the old key is gone", keys: [][]byte{newKey}, want: specsig.ErrBadSignature,
			job: func(t *testing.T) deploy.Job { return signed(t, "d1", "", oldKey) }},
		{name: "no keys: an unsigned plan runs", job: func(t *testing.T) deploy.Job { return signed(t, "d1", "") }},
		{name: "keys: an unsigned plan is refused", keys: [][]byte{oldKey}, want: specsig.ErrUnsigned,
			job: func(t *testing.T) deploy.Job { return signed(t, "d1", "") }},
		{name: "a template runs as the ticks of its schedule", keys: [][]byte{oldKey},
			job: func(t *testing.T) deploy.Job { j := signed(t, "", "nightly", oldKey); j.ID = tick; return j }},
		{name: "a template moved to the ticks of another schedule", keys: [][]byte{oldKey}, want: specsig.ErrBadSignature,
			job: func(t *testing.T) deploy.Job {
				j := signed(t, "", "weekly", oldKey)
				j.ID = tick
				return j
			}},
		{name: "a template moved to a deploy", keys: [][]byte{oldKey}, want: specsig.ErrBadSignature,
			job: func(t *testing.T) deploy.Job { j := signed(t, "", "nightly", oldKey); j.ID = "nightly"; return j }},
		{name: "a plan moved to another deploy", keys: [][]byte{oldKey}, want: specsig.ErrBadSignature,
			job: func(t *testing.T) deploy.Job { j := signed(t, "d1", "", oldKey); j.ID = "d2"; return j }},
		{name: "another application", keys: [][]byte{oldKey}, want: specsig.ErrBadSignature,
			job: func(t *testing.T) deploy.Job {
				j := signed(t, "d1", "", oldKey)
				j.Descriptor.Application, j.Effective.Application = "bank", "bank"
				return j
			}},
		{name: "a dry run turned into a run", keys: [][]byte{oldKey}, want: specsig.ErrBadSignature,
			job: func(t *testing.T) deploy.Job {
				j := job(t, "d1")
				j.Descriptor.DryRun, j.Effective.DryRun = true, true
				keyring(t, oldKey).SignPlan(&j, "")
				j.Descriptor.DryRun, j.Effective.DryRun = false, false
				return j
			}},
		{name: "a step dropped", keys: [][]byte{oldKey}, want: specsig.ErrBadSignature,
			job: func(t *testing.T) deploy.Job {
				j := signed(t, "d1", "", oldKey)
				j.Plan.Steps = j.Plan.Steps[:2]
				return j
			}},
		{name: "steps swapped", keys: [][]byte{oldKey}, want: specsig.ErrBadSignature,
			job: func(t *testing.T) deploy.Job {
				j := signed(t, "d1", "", oldKey)
				j.Plan.Steps[1], j.Plan.Steps[2] = j.Plan.Steps[2], j.Plan.Steps[1]
				return j
			}},
		{name: "a mandatory step made optional", keys: [][]byte{oldKey}, want: specsig.ErrBadSignature,
			job: func(t *testing.T) deploy.Job {
				j := signed(t, "d1", "", oldKey)
				j.Plan.Steps[1].Mandatory = false
				return j
			}},
		{name: "a standard step's retries", keys: [][]byte{oldKey}, want: specsig.ErrBadSignature,
			job: func(t *testing.T) deploy.Job {
				j := signed(t, "d1", "", oldKey)
				j.Plan.Steps[2].MaxRetries = 99
				return j
			}},
		{name: "a spec hash", keys: [][]byte{oldKey}, want: specsig.ErrBadSignature,
			job: func(t *testing.T) deploy.Job {
				j := signed(t, "d1", "", oldKey)
				j.Plan.Steps[1].SpecHash = "00"
				return j
			}},
		{name: "a signature that is not hex", keys: [][]byte{oldKey}, want: specsig.ErrBadSignature,
			job: func(t *testing.T) deploy.Job { j := signed(t, "d1", "", oldKey); j.Plan.Signature = "zz"; return j }},
		{name: "a step's signature taken for the plan's", keys: [][]byte{oldKey}, want: specsig.ErrBadSignature,
			job: func(t *testing.T) deploy.Job {
				j := signed(t, "d1", "", oldKey)
				if err := keyring(t, oldKey).Seal(&j.Plan); err != nil {
					t.Fatal(err)
				}
				j.Plan.Signature = j.Plan.Steps[1].Signature
				return j
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := keyring(t, tt.keys...).VerifyPlan(tt.job(t))
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, tt.want) || !deploy.IsPermanent(err) {
				t.Fatalf("err = %v, want a permanent %v", err, tt.want)
			}
		})
	}
}
