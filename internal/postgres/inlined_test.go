package postgres_test

import (
	"context"
	"testing"

	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
)

// A query whose arguments bun wrote into its text is sent as it is, in one
// round trip: no statement is prepared and cached on the connection for it.
// A query with real arguments still is (its plan is kept).
func TestInlinedQueriesAreNotPrepared(t *testing.T) {
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	db.Limit(1) // one connection: what one query left, the next sees
	prepared := func(marker string) int {
		t.Helper()
		var n int
		// The marker is an argument: this query's own text does not hold it.
		if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%' || $1 || '%'`,
			marker).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var got string
	if err := db.Bun().NewRaw(`SELECT ?::text`, "inlined-7f3a").Scan(ctx, &got); err != nil || got != "inlined-7f3a" {
		t.Fatalf("inlined query: %q, %v", got, err)
	}
	if n := prepared("inlined-7f3a"); n != 0 {
		t.Errorf("the inlined query left %d prepared statements", n)
	}
	// The control: the marker in the text of a query with an argument.
	if err := db.SQL().QueryRowContext(ctx, `SELECT $1::text AS "control-9b2e"`, "x").Scan(&got); err != nil || got != "x" {
		t.Fatalf("query with arguments: %q, %v", got, err)
	}
	if n := prepared("control-9b2e"); n != 1 {
		t.Errorf("the query with arguments left %d prepared statements, want 1 (cached as before)", n)
	}
}
