package service_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/jackc/pgx/v5/pgxpool"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/pgxquerier"
	"manent.dev/manent/internal/postgres"
)

// TestCanRollbackIsTheRollbackToTheReleaseBefore: the environment page
// (and the Environments matrix, whose canRollback the schema describes as
// "roll this environment back now to the release before the one in
// service") shows "Roll back to <inService.previous>…" when
// Environment.canRollback is true, and the button sends
// rollback(to: inService.previous.deploymentId). canRollback is
// MayRollBackTo without a target, whose default target is "the last deploy
// that succeeded and was created before the one in service"; the previous
// release is the inventory's, the one put in service before the current
// one. The two differ, so the affordance and the mutation the button runs
// disagree:
//   - a failure left in service (activation done, a later step failed with
//     the rollback off) is the release before: the button is shown and the
//     server refuses "did not succeed";
//   - two deploys that went in service in another order than they were
//     created (the newer one approved first): canRollback is false, the
//     button is hidden, and rollback(to: previous) is allowed (and the CLI's
//     plain `manent rollback` refuses "nothing to roll back to" while the
//     inventory names a release before).
func TestCanRollbackIsTheRollbackToTheReleaseBefore(t *testing.T) {
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
	store, rec := postgres.NewStore(db), postgres.NewRecorder()
	svc := demoService(t, store, "p, token:oncall, demo, hello/*, deployment.rollback\np, token:oncall, demo, hello/*, deployment.read\n")
	oncall := deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:oncall"})

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
	plan := deploy.Plan{Steps: []deploy.PlannedStep{
		{Name: deploy.StepDeploy, Type: "standard", Mandatory: true},
		{Name: deploy.StepActivation, Type: "standard"},
		{Name: deploy.StepPostTest, Type: "standard"},
	}}
	created := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	create := func(env, id string, at time.Duration) {
		t.Helper()
		art := deploy.Artifact{Type: "application", Name: "hello", Version: id, Source: "file:hello.tgz"}
		d := deploy.Deployment{ID: id, Tenant: "demo", Application: "hello", Environment: env, State: deploy.StateEnqueued,
			Requester: "token:ci", CreatedAt: created.Add(at), UpdatedAt: created.Add(at), Artifact: art, Plan: plan,
			Descriptor: deploy.Descriptor{APIVersion: "manent/v1", ID: id, Application: "hello", Environment: env, Artifact: art}}
		if _, _, err := store.CreateDeployment(ctx, d, func(any) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	start := func(id string) {
		t.Helper()
		inTx(func(q dbos.Querier) error { _, err := rec.StartRun(ctx, q, id, time.Now(), false); return err })
	}
	succeed := func(id string) {
		t.Helper()
		start(id)
		inTx(func(q dbos.Querier) error {
			_, err := rec.FinishRun(ctx, q, deploy.Outcome{ID: id, State: deploy.StateSuccess, InService: true})
			return err
		})
	}
	// failInService: activation puts it in service, post-test fails after it
	// with the rollback off: it stays in service, ERROR.
	failInService := func(id string) {
		t.Helper()
		start(id)
		act := &deploy.Step{DeploymentID: id, Name: deploy.StepActivation, Kind: deploy.KindRun, Position: 1, Type: deploy.StepTypeStandard}
		inTx(func(q dbos.Querier) error {
			_, err := rec.Advance(ctx, q, nil, deploy.StepEffects{}, act, deploy.BeginOptions{HonourCancel: true})
			return err
		})
		done := *act
		done.State = deploy.StepSuccess
		inTx(func(q dbos.Querier) error {
			_, err := rec.Advance(ctx, q, &done, deploy.StepEffects{InService: true}, nil, deploy.BeginOptions{})
			return err
		})
		inTx(func(q dbos.Querier) error {
			_, err := rec.FinishRun(ctx, q, deploy.Outcome{ID: id, State: deploy.StateError, Error: "post-test failed",
				FailedStep: deploy.StepPostTest, Rollback: deploy.RollbackDisabled})
			return err
		})
	}

	cases := []struct {
		name  string
		env   string
		setup func(env string)
	}{
		{"a failure left in service is the release before", "left", func(env string) {
			create(env, env+"-1", 0)
			succeed(env + "-1")
			create(env, env+"-2", time.Minute)
			failInService(env + "-2")
			create(env, env+"-3", 2*time.Minute)
			succeed(env + "-3")
		}},
		{"the newer deploy went in service first", "swapped", func(env string) {
			create(env, env+"-older", 0)
			create(env, env+"-newer", time.Minute)
			succeed(env + "-newer")
			succeed(env + "-older")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.setup(c.env)
			res := deploy.Resource{Tenant: "demo", Application: "hello", Environment: c.env}
			e, err := svc.Environment(oncall, res)
			if err != nil {
				t.Fatal(err)
			}
			if e.Previous == nil {
				t.Fatalf("inventory of %s: %+v, want a release before the one in service", c.env, e)
			}
			canRollback := svc.MayRollBackTo(oncall, deploy.RollbackRequest{Tenant: "demo", Application: "hello", Environment: c.env})
			toPrevious := svc.MayRollBackTo(oncall, deploy.RollbackRequest{Tenant: "demo", Application: "hello", Environment: c.env,
				To: e.Previous.DeploymentID})
			if (canRollback == nil) != (toPrevious == nil) {
				t.Errorf("in service %s, before it %s: canRollback says %s, rollback(to: %s) says %s",
					e.DeploymentID, e.Previous.DeploymentID, verdict(canRollback), e.Previous.DeploymentID, verdict(toPrevious))
			}
		})
	}
}

func verdict(err error) string {
	if err == nil {
		return "allowed"
	}
	return fmt.Sprintf("refused (%v)", err)
}
