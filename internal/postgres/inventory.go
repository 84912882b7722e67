package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"manent.dev/manent/deploy"
)

// inventoryRow is one environment of the inventory: its release in
// service, the one before it and its last failure.
type inventoryRow struct {
	Tenant       string           `bun:"tenant"`
	Application  string           `bun:"application"`
	Environment  string           `bun:"environment"`
	DeploymentID sql.NullString   `bun:"deployment_id"`
	Artifact     *deploy.Artifact `bun:"artifact,type:jsonb"`
	SHA256       sql.NullString   `bun:"sha256"`
	DeployedAt   *time.Time       `bun:"deployed_at"`
	DeployedBy   sql.NullString   `bun:"deployed_by"`
	PreviousID   sql.NullString   `bun:"previous_id"`
	PreviousArt  *deploy.Artifact `bun:"previous_artifact,type:jsonb"`
	PreviousSHA  sql.NullString   `bun:"previous_sha256"`
	PreviousAt   *time.Time       `bun:"previous_at"`
	PreviousBy   sql.NullString   `bun:"previous_by"`
	FailedID     sql.NullString   `bun:"failed_id"`
	FailedStep   sql.NullString   `bun:"failed_step"`
	FailedError  sql.NullString   `bun:"failed_error"`
	FailedAt     *time.Time       `bun:"failed_at"`
	Rollback     sql.NullString   `bun:"failed_rollback"`
}

// inventoryColumns are the columns of an inventoryRow, of i (manent.inventory),
// f (manent.last_failures) and p (previousRelease).
const inventoryColumns = `i.deployment_id, i.artifact, i.sha256, i.deployed_at, i.deployed_by,
	p.id AS previous_id, p.artifact AS previous_artifact, p.sha256 AS previous_sha256,
	p.deployed_at AS previous_at, p.requester AS previous_by,
	f.deployment_id AS failed_id, f.step AS failed_step, f.error AS failed_error,
	f.finished_at AS failed_at, f.rollback AS failed_rollback`

// previousRelease is the one before the release in service i: the last
// deploy that went in service there before it did and ended SUCCESS (the
// history has no deploy whose activation its rollback undid, nor dry runs;
// a deploy left in service by a failure after its activation is no release
// to go back to). The one rule of the default rollback target:
// ReleaseBefore reads the same.
const previousRelease = `LEFT JOIN LATERAL (SELECT d.id, d.artifact, d.sha256, h.deployed_at, d.requester
		FROM manent.inventory_history AS h JOIN manent.deployments AS d ON d.id = h.deployment_id
		WHERE h.tenant = i.tenant AND h.application = i.application AND h.environment = i.environment
			AND h.deployment_id <> i.deployment_id AND d.state = 'SUCCESS'
			AND h.deployed_at < COALESCE((SELECT c.deployed_at FROM manent.inventory_history AS c
				WHERE c.deployment_id = i.deployment_id), i.deployed_at)
		ORDER BY h.deployed_at DESC, h.deployment_id DESC
		LIMIT 1) AS p ON true`

// Inventory implements deploy.DeploymentReader: the release in service of
// every environment, the one before it and its last failure, in one query. An environment
// that has a failure and nothing in service has an entry too.
func (s *Store) Inventory(ctx context.Context, tenant string) ([]deploy.InventoryEntry, error) {
	var rows []inventoryRow
	err := s.db.NewRaw(`SELECT COALESCE(i.tenant, f.tenant) AS tenant, COALESCE(i.application, f.application) AS application,
			COALESCE(i.environment, f.environment) AS environment, `+inventoryColumns+`
		FROM manent.inventory AS i
		FULL OUTER JOIN manent.last_failures AS f
			ON f.tenant = i.tenant AND f.application = i.application AND f.environment = i.environment
		`+previousRelease+`
		WHERE ? = '' OR COALESCE(i.tenant, f.tenant) = ?
		ORDER BY 1, 2, 3`, tenant, tenant).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("get inventory", err)
	}
	out := make([]deploy.InventoryEntry, len(rows))
	for i := range rows {
		out[i] = fromInventoryRow(&rows[i])
	}
	return out, nil
}

// InventoryOf implements deploy.DeploymentReader: Inventory's entry of one
// environment, read by the keys of its tables.
func (s *Store) InventoryOf(ctx context.Context, res deploy.Resource) (*deploy.InventoryEntry, error) {
	var rows []inventoryRow
	err := s.db.NewRaw(`SELECT k.tenant, k.application, k.environment, `+inventoryColumns+`
		FROM (SELECT ?::text AS tenant, ?::text AS application, ?::text AS environment) AS k
		LEFT JOIN manent.inventory AS i
			ON i.tenant = k.tenant AND i.application = k.application AND i.environment = k.environment
		LEFT JOIN manent.last_failures AS f
			ON f.tenant = k.tenant AND f.application = k.application AND f.environment = k.environment
		`+previousRelease, res.Tenant, res.Application, res.Environment).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("get inventory entry", err)
	}
	if len(rows) == 0 {
		return &deploy.InventoryEntry{Tenant: res.Tenant, Application: res.Application, Environment: res.Environment}, nil
	}
	e := fromInventoryRow(&rows[0])
	return &e, nil
}

// InService implements deploy.DeploymentReader: the releases in service
// of one application, read by the inventory's keys (its primary key by
// tenant, inventory_environment_idx across tenants), without the release
// before each nor the last failures: what governance reads at every
// submission and an import at every deploy, whose cost would otherwise
// grow with every environment of the installation.
func (s *Store) InService(ctx context.Context, tenant, application, environment string) ([]deploy.InventoryEntry, error) {
	q := s.db.NewRaw(`SELECT i.tenant, i.application, i.environment, i.deployment_id, i.artifact, i.sha256,
			i.deployed_at, i.deployed_by
		FROM manent.inventory AS i
		WHERE i.application = ? AND (? = '' OR i.tenant = ?) AND (? = '' OR i.environment = ?)
		ORDER BY i.tenant, i.environment`, application, tenant, tenant, environment, environment)
	var rows []inventoryRow
	if err := q.Scan(ctx, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("get the releases in service", err)
	}
	out := make([]deploy.InventoryEntry, len(rows))
	for i := range rows {
		out[i] = fromInventoryRow(&rows[i])
	}
	return out, nil
}

// ReleaseBefore implements deploy.DeploymentReader, with the rule of
// previousRelease: before the time id went in service (its end when it
// never did).
func (s *Store) ReleaseBefore(ctx context.Context, res deploy.Resource, id string) (string, error) {
	var ids []string
	err := s.db.NewRaw(`SELECT h.deployment_id
		FROM manent.inventory_history AS h JOIN manent.deployments AS d ON d.id = h.deployment_id
		WHERE h.tenant = ? AND h.application = ? AND h.environment = ?
			AND h.deployment_id <> ? AND d.state = 'SUCCESS'
			AND h.deployed_at < COALESCE((SELECT c.deployed_at FROM manent.inventory_history AS c WHERE c.deployment_id = ?),
				(SELECT COALESCE(x.finished_at, x.created_at) FROM manent.deployments AS x WHERE x.id = ?))
		ORDER BY h.deployed_at DESC, h.deployment_id DESC
		LIMIT 1`, res.Tenant, res.Application, res.Environment, id, id, id).Scan(ctx, &ids)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", wrap("get the release before", err)
	}
	if len(ids) == 0 {
		return "", nil
	}
	return ids[0], nil
}

func fromInventoryRow(r *inventoryRow) deploy.InventoryEntry {
	e := deploy.InventoryEntry{Tenant: r.Tenant, Application: r.Application, Environment: r.Environment,
		DeploymentID: r.DeploymentID.String, SHA256: r.SHA256.String, DeployedBy: r.DeployedBy.String}
	if r.Artifact != nil {
		e.Artifact = *r.Artifact
	}
	if r.DeployedAt != nil {
		e.DeployedAt = r.DeployedAt.UTC()
	}
	if r.PreviousID.Valid && r.PreviousAt != nil {
		e.Previous = &deploy.PreviousRelease{DeploymentID: r.PreviousID.String, SHA256: r.PreviousSHA.String,
			DeployedAt: r.PreviousAt.UTC(), DeployedBy: r.PreviousBy.String}
		if r.PreviousArt != nil {
			e.Previous.Artifact = *r.PreviousArt
		}
	}
	if r.FailedID.Valid && r.FailedAt != nil {
		e.LastFailure = &deploy.LastFailure{DeploymentID: r.FailedID.String, Step: r.FailedStep.String,
			Error: r.FailedError.String, FinishedAt: r.FailedAt.UTC(), Rollback: r.Rollback.String}
	}
	return e
}
