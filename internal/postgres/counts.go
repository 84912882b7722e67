package postgres

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
)

// Counts are the figures an operator watches (the metrics read them at
// scrape time): deploys by state, and DBOS's workflows not ended by queue
// and status.
type Counts struct {
	Deploys   map[deploy.State]int
	Workflows []WorkflowCount
}

// WorkflowCount is how many workflows of a DBOS queue have a status.
type WorkflowCount struct {
	Queue  string `bun:"queue_name"`
	Status string `bun:"status"`
	Count  int    `bun:"n"`
}

// Counts reads the Counts in one read-only transaction, so both figures
// are of one moment. Both queries are answered from indexes: the state's
// of the deploys, and DBOS's partial index of the workflows in flight.
func (s *Store) Counts(ctx context.Context) (Counts, error) {
	c := Counts{Deploys: map[deploy.State]int{}}
	err := s.db.RunInTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}, func(ctx context.Context, tx bun.Tx) error {
		var states []struct {
			State deploy.State `bun:"state"`
			N     int          `bun:"n"`
		}
		if err := tx.NewRaw("SELECT state, count(*) AS n FROM manent.deployments GROUP BY state").Scan(ctx, &states); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		for _, r := range states {
			c.Deploys[r.State] = r.N
		}
		var table *string
		if err := tx.QueryRowContext(ctx, "SELECT to_regclass(?)::text", s.dbosSchema+".workflow_status").Scan(&table); err != nil {
			return err
		}
		if table == nil {
			return nil // DBOS has not created its tables yet: it runs nothing
		}
		err := tx.NewRaw(`SELECT COALESCE(queue_name, '') AS queue_name, status, count(*) AS n
			FROM ?.workflow_status WHERE status IN ('ENQUEUED', 'PENDING')
			GROUP BY 1, 2 ORDER BY 1, 2`, bun.Ident(s.dbosSchema)).Scan(ctx, &c.Workflows)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return Counts{}, wrap("count deploys and workflows", err)
	}
	return c, nil
}
