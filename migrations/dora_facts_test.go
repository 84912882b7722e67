package migrations_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"manent.dev/manent/dora"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/migrations"
)

// doraFacts is the migration that keeps the DORA metrics' facts apart
// from the deploys.
const doraFacts = "20261220001305"

// outcomesBefore reads the outcomes as manent read them before the facts:
// from the deploys themselves. The figures the migration's backfill gives
// must be these.
func outcomesBefore(t *testing.T, ctx context.Context, db *bun.DB) []dora.Outcome {
	t.Helper()
	var rows []struct {
		ID          string     `bun:"id"`
		Tenant      string     `bun:"tenant"`
		Application string     `bun:"application"`
		Environment string     `bun:"environment"`
		State       string     `bun:"state"`
		CreatedAt   time.Time  `bun:"created_at"`
		StartedAt   *time.Time `bun:"started_at"`
		FinishedAt  *time.Time `bun:"finished_at"`
		Rollback    string     `bun:"rollback"`
		RollbackOf  string     `bun:"rollback_of"`
		Remediation bool       `bun:"remediation"`
		ChangeAt    *string    `bun:"change_at"`
		Touched     bool       `bun:"touched"`
	}
	err := db.NewRaw(`SELECT d.id, d.tenant, d.application, d.environment, d.state, d.created_at,
			d.started_at, d.finished_at, d.rollback, d.rollback_of,
			COALESCE(d.descriptor->>'remediation' = 'true', false) AS remediation,
			COALESCE(d.descriptor->'commit'->>'time', d.descriptor->'artifact'->>'createdAt') AS change_at,
			EXISTS (SELECT 1 FROM manent.deployment_steps AS s
				WHERE s.deployment_id = d.id AND s.started_at IS NOT NULL
					AND s.kind IN ('run', 'rollback') AND s.name NOT IN ('config', 'secrets', 'artifacts', 'qa')) AS touched
		FROM manent.deployments AS d
		WHERE NOT d.dry_run AND d.finished_at IS NOT NULL
		ORDER BY d.finished_at, d.id`).Scan(ctx, &rows)
	if err != nil {
		t.Fatal(err)
	}
	var out []dora.Outcome
	for _, r := range rows {
		o := dora.Outcome{ID: r.ID, Tenant: r.Tenant, Application: r.Application, Environment: r.Environment,
			SubmittedAt: r.CreatedAt.UTC(), StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, State: r.State,
			TouchedTarget: r.Touched, Rollback: r.Rollback, RollbackOf: r.RollbackOf, Remediation: r.Remediation}
		if r.ChangeAt != nil {
			if c, err := time.Parse(time.RFC3339, *r.ChangeAt); err == nil {
				o.ChangeAt = &c
			}
		}
		out = append(out, o)
	}
	return out
}

// The migration fills the facts from the deploys already stored: the
// metrics computed from them are those computed from the deploys before
// it, and down gives back the schema before.
func TestDoraFactsMigrationBackfills(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := pgtest.URL(t)
	pdb, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pdb.Close() })
	db := pdb.Bun()
	// Migrate then Rollback leave an empty schema and the bookkeeping.
	if err := migrations.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Rollback(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := migratorUpTo(t, db, doraFacts, false).Migrate(ctx); err != nil {
		t.Fatalf("migrate to the one before: %v", err)
	}
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	monday := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	at := func(day, hour int) time.Time { return monday.AddDate(0, 0, day).Add(time.Duration(hour) * time.Hour) }
	history := []struct {
		id, state, rollback, rollbackOf, descriptor string
		dry                                         bool
		submitted, finished                         time.Time
		steps                                       map[string]string // name: kind, started
	}{
		{id: "d1", state: "SUCCESS", submitted: at(0, 9), finished: at(0, 10), steps: map[string]string{"config": "run", "deploy": "run"}},
		{id: "d2", state: "ERROR", rollback: "completed", submitted: at(1, 9), finished: at(1, 10), steps: map[string]string{"deploy": "run"}},
		{id: "early", state: "ERROR", submitted: at(1, 11), finished: at(1, 12), steps: map[string]string{"config": "run", "qa": "run"}},
		{id: "d4", state: "SUCCESS", submitted: at(1, 13), finished: at(1, 14), steps: map[string]string{"deploy": "run"}},
		{id: "d4.rollback", state: "SUCCESS", rollbackOf: "d4", submitted: at(1, 15), finished: at(1, 16), steps: map[string]string{"deploy": "rollback"}},
		{id: "dry", state: "SUCCESS", dry: true, submitted: at(2, 9), finished: at(2, 10), steps: map[string]string{"deploy": "dry-run"}},
		// across the bucket boundary: submitted on Sunday, finished on Monday
		{id: "d5", state: "SUCCESS", descriptor: `{"remediation": true, "commit": {"time": "2026-11-08T20:00:00Z"}}`,
			submitted: at(6, 23), finished: at(7, 1), steps: map[string]string{"deploy": "run"}},
	}
	for _, h := range history {
		desc := h.descriptor
		if desc == "" {
			desc = "{}"
		}
		exec(`INSERT INTO manent.deployments (id, tenant, application, environment, state, created_at, dry_run, descriptor, rollback_of)
			VALUES (?, 'demo', 'app', 'prod', 'ENQUEUED', ?, ?, ?::jsonb, ?)`, h.id, h.submitted, h.dry, desc, h.rollbackOf)
		exec(`UPDATE manent.deployments SET state = 'PENDING', started_at = ? WHERE id = ?`, h.submitted, h.id)
		for name, kind := range h.steps {
			exec(`INSERT INTO manent.deployment_steps (deployment_id, name, position, state, kind, started_at)
				VALUES (?, ?, 1, 'SUCCESS', ?, ?)`, h.id, name, kind, h.submitted)
		}
		exec(`UPDATE manent.deployments SET state = ?, rollback = ?, finished_at = ? WHERE id = ?`, h.state, h.rollback, h.finished, h.id)
	}
	exec(`INSERT INTO manent.deployments (id, tenant, application, environment, state) VALUES ('running', 'demo', 'app', 'prod', 'ENQUEUED')`)
	opts := dora.Options{From: monday, To: monday.AddDate(0, 0, 14)}
	want, err := dora.Compute(outcomesBefore(t, ctx, db), opts)
	if err != nil {
		t.Fatal(err)
	}
	schemaBefore := strs(t, ctx, db, schema)

	if _, err := migratorUpTo(t, db, doraFacts, true).Migrate(ctx); err != nil {
		t.Fatalf("up: %v", err)
	}
	outcomes, err := postgres.NewStore(pdb).Outcomes(ctx, dora.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := dora.Compute(outcomes, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("metrics after the backfill\n got %+v\nwant %+v", got, want)
	}
	// The history's own figures, so that the comparison is not of two
	// empty reports.
	w1, w2 := got.Weeks[0].Figures, got.Weeks[1].Figures
	for _, c := range []struct {
		name      string
		got, want []string
	}{
		{"week 1 deploys", w1.DeploymentFrequency.DeployIDs, []string{"d1", "d2", "d4", "d4.rollback"}},
		{"week 1 failures", w1.ChangeFailRate.DeployIDs, []string{"d2", "d4"}},
		{"week 1 rework", w1.ReworkRate.DeployIDs, []string{"d4.rollback"}},
		{"week 2 deploys", w2.DeploymentFrequency.DeployIDs, []string{"d5"}},
		{"week 2 rework", w2.ReworkRate.DeployIDs, []string{"d5"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if rec := w1.RecoveryTime.Recoveries; len(rec) != 2 || rec[0] != (dora.Recovered{Failed: "d2", RecoveredBy: "d4", After: 4 * time.Hour}) {
		t.Errorf("week 1 recoveries %+v", rec)
	}
	if l := w2.LeadTime; l.Samples != 1 || l.Median != 5*time.Hour {
		t.Errorf("week 2 lead time %+v, want 5h from the commit", l)
	}

	if _, err := migratorUpTo(t, db, doraFacts, true).Rollback(ctx); err != nil {
		t.Fatalf("down: %v", err)
	}
	if got := strs(t, ctx, db, schema); !slices.Equal(got, schemaBefore) {
		t.Errorf("schema after down differs from the one before up:\n got %q\nwant %q", got, schemaBefore)
	}
}
