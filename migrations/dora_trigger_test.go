package migrations_test

import (
	"context"
	"testing"
	"time"

	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/migrations"
)

// The fact of a finished deploy follows what it reads of the deploy, and
// nothing else: the last log lines of a finished deploy (their sequence),
// its current step and updated_at leave it alone.
func TestDoraFactIsRewrittenOnlyWhenWhatItReadsChanges(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := open(t, ctx, pgtest.URL(t))
	if err := migrations.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	exec(`INSERT INTO manent.deployments (id, tenant, application, environment, state) VALUES ('d', 'demo', 'app', 'prod', 'ENQUEUED')`)
	exec(`UPDATE manent.deployments SET state = 'PENDING', started_at = now() WHERE id = 'd'`)
	exec(`UPDATE manent.deployments SET state = 'SUCCESS', finished_at = now() WHERE id = 'd'`)
	if n := count(t, ctx, db, `SELECT count(*) FROM manent.dora_facts WHERE deployment_id = 'd'`); n != 1 {
		t.Fatalf("%d facts after the finish, want 1", n)
	}
	// Removed by hand, to see whether an update writes it again.
	exec(`DELETE FROM manent.dora_facts WHERE deployment_id = 'd'`)
	tests := []struct {
		update  string
		rewrite bool
	}{
		{`INSERT INTO manent.log_sequences (deployment_id, seq) VALUES ('d', 3)`, false},
		// A process of an earlier version numbering its lines.
		{`UPDATE manent.deployments SET log_seq = log_seq + 3 WHERE id = 'd'`, false},
		{`UPDATE manent.deployments SET current_step = '', updated_at = now() WHERE id = 'd'`, false},
		{`UPDATE manent.deployments SET rollback = 'completed' WHERE id = 'd'`, true},
		{`UPDATE manent.deployments SET rollback_of = 'c' WHERE id = 'd'`, true},
		{`UPDATE manent.deployments SET finished_at = now() WHERE id = 'd'`, true},
	}
	for _, tt := range tests {
		exec(tt.update)
		n := count(t, ctx, db, `SELECT count(*) FROM manent.dora_facts WHERE deployment_id = 'd'`)
		if got := n == 1; got != tt.rewrite {
			t.Errorf("%s: fact written %v, want %v", tt.update, got, tt.rewrite)
		}
		exec(`DELETE FROM manent.dora_facts WHERE deployment_id = 'd'`)
	}
}
