package graph

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/jackc/pgx/v5/pgxpool"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/authz"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/pgxquerier"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/service"
)

// countingStore counts the reads of a whole tenant's inventory.
type countingStore struct {
	service.Store
	inventories atomic.Int64
}

func (s *countingStore) Inventory(ctx context.Context, tenant string) ([]deploy.InventoryEntry, error) {
	s.inventories.Add(1)
	return s.Store.Inventory(ctx, tenant)
}

// TestAffordancesOfTheMatrixReadTheInventoryOnce: the Environments page asks
// { inventory { promotionTargets canRollback } } (InventoryCell), and the
// environment page canRollbackTo on each row of its history. Every
// canRollback / canRollbackTo is MayRollBackTo, which reads the whole
// tenant's inventory again (currentDeploy) to find one entry, and each
// pushes a List and a Get besides: one page of the matrix reads the
// tenant's inventory once per cell, O(cells²) rows with the inventory's
// lateral "one before" per row. Query.inventory is not weighed by the
// complexity limit, so nothing bounds it. The approval context does the
// same per deploy awaiting approval (Service.Environment reads the tenant's
// inventory to pick one entry), in the inbox's query and again on every
// push of its subscription, for every open inbox.
func TestAffordancesOfTheMatrixReadTheInventoryOnce(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	db := pgtest.Migrated(t, url)
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	pcfg.MaxConns = 2
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store := &countingStore{Store: postgres.NewStore(db)}
	rec := postgres.NewRecorder()
	az, err := authz.New("", "p, token:admin, *, *, admin\n")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte("server: {default_tenant: demo}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.New(service.Options{Config: cfg, Store: store, Authorizer: az})
	if err != nil {
		t.Fatal(err)
	}
	inTx := func(fn func(q dbos.Querier) error) {
		t.Helper()
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
		if err := fn(pgxquerier.New(tx)); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Two releases in each of 20 environments.
	const envs = 20
	for i := range envs {
		for j := range 2 {
			env, id := fmt.Sprintf("env-%02d", i), fmt.Sprintf("d-%02d-%d", i, j)
			art := deploy.Artifact{Type: "application", Name: "hello", Version: fmt.Sprintf("1.%d.0", j), Source: "file:hello.tgz"}
			d := deploy.Deployment{ID: id, Tenant: "demo", Application: "hello", Environment: env, State: deploy.StateEnqueued,
				Requester: "token:ci", CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC(), Artifact: art,
				Descriptor: deploy.Descriptor{APIVersion: "manent/v1", ID: id, Application: "hello", Environment: env, Artifact: art}}
			if _, _, err := store.CreateDeployment(ctx, d, func(any) error { return nil }); err != nil {
				t.Fatal(err)
			}
			inTx(func(q dbos.Querier) error { _, err := rec.StartRun(ctx, q, id, time.Now(), false); return err })
			inTx(func(q dbos.Querier) error {
				_, err := rec.FinishRun(ctx, q, deploy.Outcome{ID: id, State: deploy.StateSuccess, InService: true})
				return err
			})
		}
	}
	// And 10 deploys awaiting an approval in prod: the Approvals inbox.
	for i := range 10 {
		id := fmt.Sprintf("p-%02d", i)
		art := deploy.Artifact{Type: "application", Name: "hello", Version: "2.0.0", Source: "file:hello.tgz"}
		d := deploy.Deployment{ID: id, Tenant: "demo", Application: "hello", Environment: "prod", State: deploy.StateAwaitingApproval,
			Requester: "token:ci", CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC(), Artifact: art,
			Decision:   deploy.Decision{Rule: "prod", Approvals: &deploy.ApprovalRequirement{Count: 1}},
			Descriptor: deploy.Descriptor{APIVersion: "manent/v1", ID: id, Application: "hello", Environment: "prod", Artifact: art}}
		if _, _, err := store.CreateDeployment(ctx, d, func(any) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	srv := newTestServer(t, svc, newFakeEvents())
	for _, q := range []struct{ name, query string }{
		{"the Environments matrix", `{ inventory { deploymentId promotionTargets canRollback } }`},
		{"an environment's history", `{ environment(application: "hello", environment: "env-00") { canRollback history(first: 20) { nodes { id canRollbackTo } } } }`},
		// What the inbox's query and its subscription (every push, every
		// inbox) ask of each deploy awaiting approval.
		{"the Approvals inbox", `{ pendingApprovals { id approvalContext { explanation inService { deploymentId } approvers { holders } } } }`},
	} {
		t.Run(q.name, func(t *testing.T) {
			before := store.inventories.Load()
			r := srv.query(t, "admin", q.query, nil)
			if len(r.Errors) > 0 {
				t.Fatalf("%s: %+v", q.query, r.Errors)
			}
			if n := store.inventories.Load() - before; n > 2 {
				t.Errorf("%s read the tenant's whole inventory %d times for one answer", q.query, n)
			}
		})
	}
}
