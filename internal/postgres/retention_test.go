package postgres_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/dora"
)

// TestRetentionPurge seeds a history on PostgreSQL and checks what one run
// of the retention removes and what it keeps.
func TestRetentionPurge(t *testing.T) {
	f := newFixture(t)
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := f.pool.Exec(f.ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	day := 24 * time.Hour
	now := time.Now()
	seed := []struct {
		id, env, state string
		age            time.Duration
	}{
		{"old-ok", "prod", "SUCCESS", 200 * day},            // removed: finished long ago
		{"old-err", "prod", "ERROR", 150 * day},             // removed: a failure, not the last
		{"old-cancelled", "staging", "CANCELLED", 95 * day}, // removed
		{"in-service", "prod", "SUCCESS", 120 * day},        // kept: the release in service
		{"before", "prod", "SUCCESS", 130 * day},            // kept: the one before it
		{"last-failure", "prod", "ERROR", 100 * day},        // kept: the last failure of prod
		{"recent", "prod", "SUCCESS", 10 * day},             // kept: younger than the retention
		{"running", "prod", "PENDING", 300 * day},           // kept: not finished
	}
	for _, s := range seed {
		at := now.Add(-s.age)
		var finished *time.Time
		if s.state != "PENDING" {
			finished = &at
		}
		// Through the transitions the database allows, then dated.
		exec(`INSERT INTO manent.deployments (id, tenant, application, environment, state, created_at)
			VALUES ($1, 'demo', 'app', $2, 'ENQUEUED', $3)`, s.id, s.env, at)
		exec(`UPDATE manent.deployments SET state = 'PENDING' WHERE id = $1`, s.id)
		if s.state != "PENDING" {
			exec(`UPDATE manent.deployments SET state = $2 WHERE id = $1`, s.id, s.state)
		}
		exec(`UPDATE manent.deployments SET finished_at = $2 WHERE id = $1`, s.id, finished)
		exec(`INSERT INTO manent.deployment_logs (deployment_id, seq, time, message) VALUES ($1, 1, $2, 'line')`, s.id, at)
	}
	exec(`INSERT INTO manent.deployment_logs (deployment_id, seq, time, message) VALUES ('recent', 2, now(), 'fresh')`)
	exec(`INSERT INTO manent.approvals (deployment_id, identity, approved) VALUES ('old-ok', 'alice', true)`)
	exec(`INSERT INTO manent.inventory (tenant, application, environment, deployment_id, deployed_at)
		VALUES ('demo', 'app', 'prod', 'in-service', $1)`, now.Add(-120*day))
	exec(`INSERT INTO manent.last_failures (tenant, application, environment, deployment_id, finished_at)
		VALUES ('demo', 'app', 'prod', 'last-failure', $1)`, now.Add(-100*day))
	for _, h := range []struct {
		id  string
		age time.Duration
	}{{"old-ok", 200 * day}, {"before", 130 * day}, {"in-service", 120 * day}} {
		exec(`INSERT INTO manent.inventory_history (deployment_id, tenant, application, environment, deployed_at)
			VALUES ($1, 'demo', 'app', 'prod', $2)`, h.id, now.Add(-h.age))
	}
	exec(`INSERT INTO manent.audit (time, actor, action) VALUES ($1, 'token:ci', 'deploy.create'), ($2, 'token:ci', 'deploy.create')`,
		now.Add(-500*day), now.Add(-450*day))
	exec(`INSERT INTO manent.audit (time, actor, action) VALUES ($1, 'token:ci', 'deploy.create')`, now.Add(-10*day))

	outcomes := func() []dora.Outcome {
		t.Helper()
		o, err := f.store.Outcomes(f.ctx, dora.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	facts := outcomes()
	if n := len(facts); n != 7 {
		t.Fatalf("%d DORA facts before the run, want the 7 finished deploys", n)
	}

	got, err := f.store.Purge(f.ctx, "manent:retention", deploy.Retention{Deployments: 90 * day, Logs: 30 * day, Audit: 400 * day, Dora: 730 * day})
	if err != nil {
		t.Fatalf("Purge: %v", err)
	}
	slices.Sort(got.Deployments)
	// The removed deploys leave their facts: the metrics are unchanged.
	if after := outcomes(); !reflect.DeepEqual(after, facts) || got.DoraFacts != 0 {
		t.Errorf("DORA facts after the run (%d removed):\n got %+v\nwant %+v", got.DoraFacts, after, facts)
	}
	if want := []string{"old-cancelled", "old-err", "old-ok"}; !slices.Equal(got.Deployments, want) {
		t.Errorf("removed deploys = %v, want %v", got.Deployments, want)
	}
	// Log lines older than 30 days: those of the 5 kept deploys older than
	// that (the removed deploys' lines went with them).
	if got.Logs != 4 || got.Audit != 2 || got.AuditLast-got.AuditFirst != 1 {
		t.Errorf("removed %d log lines and %d audit entries (%d..%d), want 4 and 2", got.Logs, got.Audit, got.AuditFirst, got.AuditLast)
	}

	var left []string
	rows, err := f.pool.Query(f.ctx, `SELECT id FROM manent.deployments ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		left = append(left, id)
	}
	rows.Close()
	if want := []string{"before", "in-service", "last-failure", "recent", "running"}; !slices.Equal(left, want) {
		t.Errorf("deploys left = %v, want %v", left, want)
	}
	var approvals, logs int
	if err := f.pool.QueryRow(f.ctx, `SELECT (SELECT count(*) FROM manent.approvals), (SELECT count(*) FROM manent.deployment_logs)`).
		Scan(&approvals, &logs); err != nil {
		t.Fatal(err)
	}
	if approvals != 0 || logs != 2 {
		t.Errorf("left %d approvals and %d log lines, want 0 and 2", approvals, logs)
	}

	// The run is one audit entry with the counts and the IDs.
	var actor, details string
	if err := f.pool.QueryRow(f.ctx, `SELECT actor, details::text FROM manent.audit WHERE action = 'retention.run'`).
		Scan(&actor, &details); err != nil {
		t.Fatalf("retention audit entry: %v", err)
	}
	var d struct {
		Deployments int      `json:"deployments"`
		IDs         []string `json:"deployment_ids"`
		Logs        int      `json:"log_lines"`
		Audit       int      `json:"audit_entries"`
		DoraFacts   *int     `json:"dora_facts"`
	}
	if err := json.Unmarshal([]byte(details), &d); err != nil {
		t.Fatal(err)
	}
	slices.Sort(d.IDs)
	if actor != "manent:retention" || d.Deployments != 3 || !slices.Equal(d.IDs, got.Deployments) || d.Logs != 4 || d.Audit != 2 ||
		d.DoraFacts == nil || *d.DoraFacts != 0 {
		t.Errorf("audit entry %s by %s", details, actor)
	}

	// A second run removes nothing more and still records itself.
	again, err := f.store.Purge(f.ctx, "manent:retention", deploy.Retention{Deployments: 90 * day, Logs: 30 * day, Audit: 400 * day, Dora: 730 * day})
	if err != nil || len(again.Deployments) != 0 || again.Logs != 0 || again.Audit != 0 || again.DoraFacts != 0 {
		t.Errorf("second run = %+v, %v; want nothing removed", again, err)
	}

	// A shorter retention of the facts removes those of the deploys that
	// ended before it, removed deploys or not.
	expired, err := f.store.Purge(f.ctx, "manent:retention", deploy.Retention{Deployments: 90 * day, Dora: 140 * day})
	if err != nil || expired.DoraFacts != 2 {
		t.Fatalf("run with dora 140d = %+v, %v; want the facts of old-ok and old-err removed", expired, err)
	}
	var ids []string
	for _, o := range outcomes() {
		ids = append(ids, o.ID)
	}
	slices.Sort(ids)
	if want := []string{"before", "in-service", "last-failure", "old-cancelled", "recent"}; !slices.Equal(ids, want) {
		t.Errorf("DORA facts left = %v, want %v", ids, want)
	}
}

// TestAuditStaysAppendOnly checks that only manent.audit_expire removes
// audit entries, and only old ones.
func TestAuditStaysAppendOnly(t *testing.T) {
	f := newFixture(t)
	if _, err := f.pool.Exec(f.ctx, `INSERT INTO manent.audit (time, actor, action) VALUES (now() - interval '500 days', 'a', 'x')`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, sql, want string }{
		{"direct delete", `DELETE FROM manent.audit`, "append-only"},
		{"update", `UPDATE manent.audit SET actor = 'b'`, "append-only"},
		{"truncate", `TRUNCATE manent.audit`, "append-only"},
		{"expire recent entries", `SELECT manent.audit_expire(now() - interval '1 day')`, "at least 30 days"},
		{"delete as the retention role", `SET LOCAL ROLE manent_audit_retention; DELETE FROM manent.audit`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tx, err := f.pool.Begin(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback(f.ctx) }()
			_, err = tx.Exec(f.ctx, tc.sql)
			if tc.want == "" {
				// A session may take the role only when it is a member of it;
				// the test's superuser is, so the trigger lets it through:
				// what keeps others out is the membership, granted to no one.
				if err != nil {
					t.Fatalf("%s: %v", tc.sql, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%s: err = %v, want %q", tc.sql, err, tc.want)
			}
		})
	}
	var n int
	if err := f.pool.QueryRow(f.ctx, `SELECT count(*) FROM manent.audit`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("audit entries = %d, %v; want 1 kept", n, err)
	}
}

// TestRetentionWithoutTheAuditRole: where the migration could not hand
// manent.audit_expire to manent_audit_retention (a database user without
// the right to create roles), the function runs as manent's user, whom
// the trigger refuses: the run still removes what it may, keeps the
// expired audit entries, and says so in its entry.
func TestRetentionWithoutTheAuditRole(t *testing.T) {
	f := newFixture(t)
	day := 24 * time.Hour
	for _, sql := range []string{
		`ALTER FUNCTION manent.audit_expire(timestamptz) OWNER TO CURRENT_USER`,
		`INSERT INTO manent.audit (time, actor, action) VALUES (now() - interval '500 days', 'a', 'x')`,
	} {
		if _, err := f.pool.Exec(f.ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	got, err := f.store.Purge(f.ctx, "manent:retention", deploy.Retention{Deployments: 90 * day, Logs: 30 * day, Audit: 400 * day})
	if err != nil || got.Audit != 0 {
		t.Fatalf("purge = %+v, %v; want no error and no audit entry removed", got, err)
	}
	var old int
	var details string
	if err := f.pool.QueryRow(f.ctx, `SELECT (SELECT count(*) FROM manent.audit WHERE action = 'x'),
		(SELECT details::text FROM manent.audit WHERE action = 'retention.run')`).Scan(&old, &details); err != nil {
		t.Fatal(err)
	}
	if old != 1 || !strings.Contains(details, "expired audit entries kept") {
		t.Fatalf("old entries %d, run entry %s: want the old entry kept and the run saying why", old, details)
	}
}
