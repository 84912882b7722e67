package postgres_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/postgres"
)

// Advance writes an end, the next start and the inventory they change or
// read in one statement; the general path writes them one by one. Both must
// leave the same records and answer the same.
func TestAdvanceInOneStatementMatchesTheGeneralPath(t *testing.T) {
	f := newFixture(t)
	t0 := time.Date(2026, 4, 5, 6, 7, 8, 0, time.UTC)
	eff := deploy.Effective{Tenant: "demo", Application: "app", Environment: "e", Plugin: "local", ConfigRevision: "r2"}
	type call struct {
		done, next string // operations as op names them, "" for none
		failed     bool
		fx         deploy.StepEffects
		honour     bool
		read       bool // the start reads what is in service
		carry      bool // the start carries an output and an end (a wave's approval does)
		cancel     bool // request a cancel before the call
	}
	inService := deploy.StepEffects{InService: true, SHA256: "beef"}
	tests := []struct {
		name   string
		dryRun bool
		calls  []call
	}{
		{"a step after another", false, []call{{next: "config"}, {done: "config", next: "artifacts", honour: true}, {done: "artifacts", failed: true}}},
		{"an end with no start recorded", false, []call{{done: "deploy@web-1"}}},
		{"a restart", false, []call{{next: "config"}, {next: "config"}, {done: "config", next: "deploy"}}},
		{"cancel honoured", false, []call{{next: "config"}, {done: "config", next: "artifacts", honour: true, cancel: true}}},
		{"cancel not honoured", false, []call{{next: "deploy"}, {done: "deploy", next: "rollback:deploy", cancel: true}}},
		{"effects", false, []call{{next: "config"}, {done: "config", next: "checkpoint:deploy",
			fx: deploy.StepEffects{Effective: &eff, SHA256: "cafe", Rollback: deploy.RollbackRunning}}}},
		{"the first start, cancelled", false, []call{{next: "config", honour: true, cancel: true}}},
		{"put in service", false, []call{{next: "activation"}, {done: "activation", next: "cleanup", fx: inService}}},
		{"put in service, the last", false, []call{{next: "activation"}, {done: "activation", fx: inService}}},
		{"a dry run is never in service", true, []call{{next: "activation"}, {done: "activation", next: "cleanup", fx: inService}}},
		{"the start reads nothing in service", false, []call{{next: "post-test"}, {done: "post-test", next: "activation", read: true}}},
		{"the start reads what is in service", false, []call{{next: "activation"}, {done: "activation", fx: inService},
			{next: "verify"}, {done: "verify", next: "activation", read: true}}},
		{"a cancelled start reads nothing", false, []call{{next: "activation"}, {done: "activation", fx: inService},
			{next: "verify"}, {done: "verify", next: "activation", read: true, honour: true, cancel: true}}},
		{"a start that carries its output", false, []call{{next: "config", carry: true},
			{done: "config", next: "approval@wave-2", carry: true}}},
		{"in service and read at once", false, []call{{next: "activation"}, {done: "activation", next: "activation", fx: inService, read: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var records [2][]deploy.Step
			var deploys [2]*deploy.Deployment
			var begun [2][]*deploy.Begun
			var inventory [2][]string
			for i, general := range []bool{false, true} {
				id := slug(tt.name) + map[bool]string{false: "-once", true: "-general"}[general]
				rec := f.rec
				if general {
					rec = postgres.NewStepByStepRecorder()
				}
				d := deployment(id, id)
				d.DryRun = tt.dryRun
				f.run(d)
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
						if c.carry {
							end := at.Add(time.Minute)
							next.Output, next.FinishedAt = map[string]string{"expires_at": end.Format(time.RFC3339)}, &end
						}
					}
					var b *deploy.Begun
					err := f.inTx(func(q dbos.Querier) (err error) {
						b, err = rec.Advance(f.ctx, q, done, c.fx, next, deploy.BeginOptions{HonourCancel: c.honour, ReadInService: c.read})
						return err
					})
					if err != nil {
						t.Fatalf("call %d (general %v): %v", n, general, err)
					}
					if b != nil && b.InService == id {
						b.InService = "itself"
					}
					begun[i] = append(begun[i], b)
				}
				inventory[i] = f.inventoryOf(id)
				d = *f.get(id)
				for _, s := range d.Steps {
					s.DeploymentID = ""
					records[i] = append(records[i], s)
				}
				// A run and its compensation tie in the order of Get.
				slices.SortFunc(records[i], func(a, b deploy.Step) int { return strings.Compare(a.Key().Name(), b.Key().Name()) })
				d.ID, d.Environment, d.Descriptor, d.Effective.Environment, d.UpdatedAt, d.CreatedAt, d.StartedAt, d.Steps =
					"", "", deploy.Descriptor{}, "", time.Time{}, time.Time{}, nil, nil
				deploys[i] = &d
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
			if !reflect.DeepEqual(inventory[0], inventory[1]) {
				t.Errorf("inventory\n%q in one statement\n%q step by step", inventory[0], inventory[1])
			}
		})
	}
}

// inventoryOf is what the inventory and its history say of environment env
// (named as its deploy, id): the deploy in service (as "itself" when it is
// id), its artifact, digest and deployer, and the history's entries.
func (f *fixture) inventoryOf(id string) []string {
	f.t.Helper()
	var out []string
	rows, err := f.db.SQL().QueryContext(f.ctx, `SELECT 'in service: ' || CASE WHEN deployment_id = $1 THEN 'itself' ELSE deployment_id END
			|| ' ' || artifact::text || ' ' || sha256 || ' by ' || deployed_by
		FROM manent.inventory WHERE environment = $1
		UNION ALL SELECT 'history: ' || CASE WHEN deployment_id = $1 THEN 'itself' ELSE deployment_id END
		FROM manent.inventory_history WHERE environment = $1 ORDER BY 1`, id)
	if err != nil {
		f.t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		f.t.Fatal(err)
	}
	return out
}
