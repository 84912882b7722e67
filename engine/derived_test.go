package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"manent.dev/manent/deploy"
)

// The IDs manent derives (the deploys of a release, the rollbacks of a
// release, the ticks of a schedule) taken first by someone else, in another
// tenant or in the same one: the owner sees an error, and nothing of the
// deploy that holds the ID is used or shown. token:mallory deploys in
// tenant acme only.

// descriptorIn is descriptorFor in tenant.
func descriptorIn(tenant, id, app, environment string) string {
	return strings.Replace(descriptorFor(id, app, environment), "application:", "tenant: "+tenant+"\napplication:", 1)
}

// configure gives tenant environment configurations on the test plugin, one
// per "<application>/<environment>".
func (e *env) configure(tenant string, objects ...string) {
	e.t.Helper()
	for _, o := range objects {
		writeFile(e.t, filepath.Join(e.dir, "envconfig", tenant, o+".yml"), "plugin: test\ntargets: [{path: /nowhere}]\n")
	}
}

func (e *env) as(subject string) context.Context {
	return deploy.WithIdentity(e.ctx, deploy.Identity{Subject: subject})
}

// submitAs submits doc as subject and waits for its deploy to succeed.
func (e *env) submitAs(subject, doc string) *deploy.Deployment {
	e.t.Helper()
	sub, err := e.eng.Submit(e.as(subject), []byte(doc), deploy.SubmitOptions{})
	if err != nil {
		e.t.Fatalf("submit as %s: %v", subject, err)
	}
	return e.waitState(sub.Deployment.ID, deploy.StateSuccess)
}

// noneOf fails when text shows anything of the deploy another tenant holds.
func noneOf(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("%s %q shows %q", what, text, s)
		}
	}
}

// TestRollbackToAnotherTenantsDeploy: rollback --to a deploy of another
// tenant answers as for a deploy that does not exist, whether or not the
// caller may read it, and submits nothing.
func TestRollbackToAnotherTenantsDeploy(t *testing.T) {
	e := newEnv(t)
	e.configure("acme", "secretapp/prod")
	e.submitAs("token:mallory", descriptorIn("acme", "secret-1", "secretapp", "prod"))
	e.submitAs("token:ci", descriptorFor("v1", "app", "staging"))
	e.submitAs("token:ci", strings.Replace(descriptorFor("v2", "app", "staging"), `"1.0.0"`, `"2.0.0"`, 1))
	tests := []struct {
		name, who, to string
	}{
		{"a deploy that does not exist", "token:rel", "missing-1"},
		{"a deploy of another tenant", "token:rel", "secret-1"},
		{"a deploy of another tenant the caller may read", "token:admin", "secret-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.eng.RollbackTo(e.as(tt.who), deploy.RollbackRequest{Application: "app", Environment: "staging", To: tt.to})
			want := fmt.Sprintf("no deploy %q to roll back to", tt.to)
			if deploy.ErrorCode(err) != deploy.EUNPROCESSABLE || deploy.ErrorMessage(err) != want {
				t.Fatalf("got %v (%v), want UNPROCESSABLE %q", deploy.ErrorCode(err), err, want)
			}
			noneOf(t, "error", err.Error(), "acme", "secretapp", "prod")
		})
	}
	page, err := e.store.List(e.ctx, deploy.ListFilter{Tenant: "demo", Application: "app", Environment: "staging"})
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("deploys of app/staging: %d (%v), want v1 and v2 alone", len(page.Items), err)
	}
}

// TestManualRollbackIDs: the ID given to a manual rollback is checked like
// a descriptor's (the form of a tick's ID is refused), and an existing
// deploy under it is the answer only when it is a rollback of that
// environment.
func TestManualRollbackIDs(t *testing.T) {
	e := newEnv(t)
	e.submitAs("token:ci", descriptorFor("v1", "app", "staging"))
	e.submitAs("token:ci", strings.Replace(descriptorFor("v2", "app", "staging"), `"1.0.0"`, `"2.0.0"`, 1))
	rel := e.as("token:rel")
	first, err := e.eng.RollbackTo(rel, deploy.RollbackRequest{Application: "app", Environment: "staging", ID: "rb-1"})
	if err != nil || !first.Created {
		t.Fatalf("rollback = %+v, %v", first, err)
	}
	if d := e.waitState("rb-1", deploy.StateSuccess); d.RollbackOf != "v2" {
		t.Fatalf("rb-1 records the rollback of %q, want v2", d.RollbackOf)
	}
	tests := []struct {
		name, id string
		code     deploy.Code
		want     string
	}{
		{"the form of a tick", "nightly@20261201-020000", deploy.EINVALID, "id: must not end in @<yyyymmdd-hhmmss>"},
		{"not an ID", "Rb 1", deploy.EINVALID, "id: must be 1 to 128 characters"},
		{"a deploy that is not a rollback", "v1", deploy.ECONFLICT, `deploy ID "v1" is already in use`},
		{"the same rollback again", "rb-1", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub, err := e.eng.RollbackTo(rel, deploy.RollbackRequest{Application: "app", Environment: "staging", ID: tt.id})
			switch {
			case tt.code == "" && (err != nil || sub.Created || sub.Deployment.ID != "rb-1"):
				t.Fatalf("again = %+v, %v, want rb-1 as it is", sub, err)
			case tt.code != "" && (deploy.ErrorCode(err) != tt.code || !strings.Contains(deploy.ErrorMessage(err), tt.want)):
				t.Fatalf("got %v (%q), want %s with %q", deploy.ErrorCode(err), deploy.ErrorMessage(err), tt.code, tt.want)
			}
		})
	}
	page, err := e.store.List(e.ctx, deploy.ListFilter{Tenant: "demo", Application: "app", Environment: "staging"})
	if err != nil || len(page.Items) != 3 {
		t.Fatalf("deploys of app/staging: %d (%v), want v1, v2 and rb-1", len(page.Items), err)
	}
}

// TestSubmittedIDsOfTheFormOfATick: no submission may name a deploy as a
// schedule's tick names its own, so no one can take a tick's ID first.
func TestSubmittedIDsOfTheFormOfATick(t *testing.T) {
	e := newReleaseEnv(t, "db")
	e.configure("acme", "app/staging")
	tick := "nightly@20261201-020000"
	tests := []struct {
		name   string
		submit func() error
		want   string
	}{
		{"a deploy", func() error {
			_, err := e.eng.Submit(e.as("token:mallory"), []byte(descriptorIn("acme", tick, "app", "staging")), deploy.SubmitOptions{})
			return err
		}, "id: must not end in @<yyyymmdd-hhmmss>"},
		{"a deploy of a release", func() error {
			doc := strings.Replace(releaseDoc("r1", "stop", member{name: "db"}), "{apiVersion: manent/v1,", "{apiVersion: manent/v1, id: "+tick+",", 1)
			_, err := e.eng.SubmitRelease(e.ctx, []byte(doc))
			return err
		}, "deploys[0].descriptor.id: must not end in @<yyyymmdd-hhmmss>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.submit()
			if deploy.ErrorCode(err) != deploy.EINVALID || !strings.Contains(deploy.ErrorMessage(err), tt.want) {
				t.Fatalf("got %v (%q), want INVALID with %q", deploy.ErrorCode(err), deploy.ErrorMessage(err), tt.want)
			}
		})
	}
	if _, err := e.store.Get(e.ctx, tick); deploy.ErrorCode(err) != deploy.ENOTFOUND {
		t.Fatalf("refused deploy stored: %v", err)
	}
}

// TestReleaseRollbackIDTaken: <release>.rollback.<name> exists before the
// release needs it. The requester may read every tenant (admin), so the
// deploy that holds the ID would be returned as the rollback: instead the
// rollback is REFUSED with the conflict, the environment keeps the release's
// failed version, and the deploy that holds the ID is left as it was.
func TestReleaseRollbackIDTaken(t *testing.T) {
	const rollbackID = "shop.rollback.db"
	tests := []struct {
		name  string
		squat func(e *env) *deploy.Deployment
	}{
		{"by another tenant", func(e *env) *deploy.Deployment {
			return e.submitAs("token:mallory", descriptorIn("acme", rollbackID, "db", "prod"))
		}},
		{"in the same tenant, by another environment", func(e *env) *deploy.Deployment {
			return e.submitAs("token:ci", descriptorFor(rollbackID, "app", "staging"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newReleaseEnv(t, "db", "api")
			e.configure("acme", "db/prod")
			e.ctx = e.as("token:admin")
			newGates(e, nil)
			e.submitAs("token:admin", descriptorFor("db-v1", "db", "prod"))
			squat := tt.squat(e)
			newGates(e, nil, "shop.api")
			e.submitRelease(releaseDoc("shop", deploy.OnFailureRollback, member{name: "db"}, member{name: "api", after: []string{"db"}}))
			r := e.waitRelease("shop")
			want := map[string]string{"db": "SUCCESS", "db.rollback": deploy.RollbackRefused, "api": "ERROR"}
			if got := memberStates(r); fmt.Sprint(got) != fmt.Sprint(want) || r.State != deploy.ReleaseError {
				t.Fatalf("release %s, deploys %v, want ERROR %v", r.State, got, want)
			}
			db := r.Deploys[0]
			wantErr := `deploy ID "shop.rollback.db" is already taken by a deploy manent did not create for the rollback of shop.db in release shop`
			if db.RollbackDeploymentID != "" || db.RollbackError != wantErr {
				t.Fatalf("db rollback %q: %q, want none: %q", db.RollbackDeploymentID, db.RollbackError, wantErr)
			}
			noneOf(t, "rollback error", db.RollbackError, "acme", "staging", "token:")
			inv, err := e.store.Inventory(e.ctx, "demo")
			if err != nil {
				t.Fatal(err)
			}
			inService := ""
			for _, in := range inv {
				if in.Application == "db" && in.Environment == "prod" {
					inService = in.DeploymentID
				}
			}
			if inService != "shop.db" {
				t.Errorf("demo/db/prod runs %q, want shop.db (not rolled back)", inService)
			}
			after, err := e.store.Get(e.ctx, rollbackID)
			if err != nil || after.Release != "" || after.Tenant != squat.Tenant || after.Requester != squat.Requester ||
				after.State != deploy.StateSuccess || e.plugin.callCount(rollbackID) != 1 {
				t.Fatalf("the deploy that holds the ID changed: %+v (ran %d times), %v", after, e.plugin.callCount(rollbackID), err)
			}
		})
	}
}

// TestReleaseMemberIDTaken: <release>.<name> exists in another tenant when
// the release is submitted (refused at once, nothing stored), or is taken
// between the release's acceptance and the queuing of its deploys (that
// deploy is refused, the release ends in ERROR).
func TestReleaseMemberIDTaken(t *testing.T) {
	wantTaken := func(id string) string {
		return fmt.Sprintf("deploy ID %q is already taken by a deploy manent did not create for release %s", id, strings.Split(id, ".")[0])
	}
	t.Run("before the submission", func(t *testing.T) {
		e := newReleaseEnv(t, "db", "api")
		e.configure("acme", "api/prod")
		e.submitAs("token:mallory", descriptorIn("acme", "early.api", "api", "prod"))
		_, err := e.eng.SubmitRelease(e.as("token:admin"), []byte(releaseDoc("early", "stop", member{name: "db"}, member{name: "api", after: []string{"db"}})))
		want := "release refused: deploys[1]: " + wantTaken("early.api")
		if deploy.ErrorCode(err) != deploy.ECONFLICT || deploy.ErrorMessage(err) != want {
			t.Fatalf("got %v (%q), want CONFLICT with %q", deploy.ErrorCode(err), deploy.ErrorMessage(err), want)
		}
		noneOf(t, "error", err.Error(), "acme", "token:mallory")
		if _, err := e.store.GetRelease(e.ctx, "early"); deploy.ErrorCode(err) != deploy.ENOTFOUND {
			t.Fatalf("refused release stored: %v", err)
		}
		if _, err := e.store.Get(e.ctx, "early.db"); deploy.ErrorCode(err) != deploy.ENOTFOUND {
			t.Fatalf("a deploy of the refused release was stored: %v", err)
		}
	})
	t.Run("after the acceptance", func(t *testing.T) {
		// Governance is asked about api once when the release is checked,
		// then again when the release queues it: its ID is taken just then.
		var e *env
		gov := &hookGovernor{before: func(in deploy.GovernanceInput, n int) error {
			if in.Tenant != "demo" || in.Application != "api" || n != 2 {
				return nil
			}
			_, err := e.eng.Submit(e.as("token:mallory"), []byte(descriptorIn("acme", "late.api", "api", "prod")), deploy.SubmitOptions{})
			return err
		}}
		e = newEnvWith(t, envOptions{governor: gov, engineYAML: "chains: {poll_interval: 5m}"})
		e.configure("demo", "db/prod", "api/prod")
		e.configure("acme", "api/prod")
		e.ctx = e.as("token:admin")
		// db, queued first, is held: it ends CANCELLED whether it started or not.
		g := newGates(e, []string{"late.db"})
		e.submitRelease(releaseDoc("late", "stop", member{name: "db"}, member{name: "api", after: []string{"db"}}))
		e.waitReleaseFor("late", func(r *deploy.Release) bool { return r.Deploys[1].State == deploy.StateError })
		close(g.hold["late.db"])
		e.waitState("late.db", deploy.StateCancelled)
		r := e.waitRelease("late")
		got := memberStates(r)
		if r.State != deploy.ReleaseError || got["api"] != "ERROR" || got["db"] != "CANCELLED" {
			t.Fatalf("release %s %q, deploys %v", r.State, r.Error, got)
		}
		api := r.Deploys[1]
		if want := "refused: " + wantTaken("late.api"); api.Error != want {
			t.Fatalf("api: %q, want %q", api.Error, want)
		}
		noneOf(t, "release error", r.Error+" "+api.Error, "acme", "token:mallory")
		squat := e.waitState("late.api", deploy.StateSuccess)
		if squat.Release != "" || squat.Tenant != "acme" || squat.Requester != "token:mallory" {
			t.Fatalf("the deploy that holds the ID changed: %+v", squat)
		}
	})
}

// hookGovernor decides nothing; before runs first on every decision, with
// how many decisions were asked for that tenant, application and
// environment so far. Unlike fakeGovernor it holds no lock while before
// runs, which may submit (and so decide) again.
type hookGovernor struct {
	mu     sync.Mutex
	counts map[deploy.Resource]int
	before func(in deploy.GovernanceInput, n int) error
}

func (g *hookGovernor) Decide(_ context.Context, in deploy.GovernanceInput) (deploy.Decision, error) {
	res := deploy.Resource{Tenant: in.Tenant, Application: in.Application, Environment: in.Environment}
	g.mu.Lock()
	if g.counts == nil {
		g.counts = map[deploy.Resource]int{}
	}
	g.counts[res]++
	n := g.counts[res]
	g.mu.Unlock()
	return deploy.Decision{}, g.before(in, n)
}

func (g *hookGovernor) Frozen(context.Context, deploy.GovernanceInput) (*deploy.Freeze, error) {
	return nil, nil
}

// TestScheduleTickIDTaken: the deploy ID of the next ticks is held by a
// deploy of another tenant (stored before such IDs were refused to
// submissions, here written to the store directly): the tick starts
// nothing, is recorded as failed with why (lastError) and an audit entry,
// the schedule goes on, and the deploy that holds the ID is left alone.
func TestScheduleTickIDTaken(t *testing.T) {
	t.Parallel() // waits for a wall-clock minute
	e := newEnv(t)
	// The first tick is the next minute, or the one after if the schedule
	// is saved after it: both are taken.
	now := time.Now().UTC()
	squats := map[string]bool{}
	for i := 1; i <= 2; i++ {
		id := deploy.TickID("nightly", now.Truncate(time.Minute).Add(time.Duration(i)*time.Minute))
		squats[id] = true
		dep := deploy.Deployment{ID: id, Tenant: "acme", Application: "secretapp", Environment: "prod",
			State: deploy.StateEnqueued, Requester: "token:mallory", CreatedAt: now, UpdatedAt: now}
		if _, created, err := e.store.CreateDeployment(e.ctx, dep, nil); err != nil || !created {
			t.Fatalf("squat %s: %v", id, err)
		}
	}
	ctx, cancel := context.WithTimeout(e.ctx, 150*time.Second)
	defer cancel()
	events := e.events.Subscribe(ctx, "nightly")
	doc := strings.Replace(descriptorFor("nightly", "app", "staging"), "artifact:", "schedule: {cron: \"* * * * *\"}\nartifact:", 1)
	if _, err := e.eng.Submit(e.ctx, []byte(doc), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	// The first tick either started a deploy or failed.
	var sc *deploy.RecurringSchedule
	for {
		var err error
		if sc, err = e.store.GetSchedule(ctx, "nightly"); err == nil && (sc.LastError != "" || sc.LastDeployment != "") {
			break
		}
		select {
		case <-events:
		case <-ctx.Done():
			t.Fatalf("no tick: %v", err)
		}
	}
	tick := deploy.TickID("nightly", *sc.LastTick)
	want := fmt.Sprintf("deploy ID %q is already taken by a deploy manent did not create for a tick of schedule nightly", tick)
	if !squats[tick] || sc.LastError != want || sc.LastDeployment != "" || sc.NextTick == nil || !sc.NextTick.After(*sc.LastTick) {
		t.Fatalf("tick %s: last deployment %q, last error %q, next tick %v; want %q, no deploy, a next tick",
			tick, sc.LastDeployment, sc.LastError, sc.NextTick, want)
	}
	noneOf(t, "last error", sc.LastError, "acme", "secretapp", "token:mallory")
	// The owner sees it in the list of schedules; the other tenant does not see the schedule.
	if list, err := e.eng.Schedules(e.ctx); err != nil || len(list) != 1 || list[0].LastError != want {
		t.Fatalf("schedules = %+v, %v", list, err)
	}
	if list, err := e.eng.Schedules(e.as("token:mallory")); err != nil || len(list) != 0 {
		t.Fatalf("schedules of another tenant = %+v, %v", list, err)
	}
	if page, err := e.store.List(e.ctx, deploy.ListFilter{Tenant: "demo", Application: "app", Environment: "staging"}); err != nil || len(page.Items) != 0 {
		t.Fatalf("deploys of app/staging: %d (%v), want none", len(page.Items), err)
	}
	held, err := e.store.Get(e.ctx, tick)
	if err != nil || held.Tenant != "acme" || held.Requester != "token:mallory" || held.Schedule != "" ||
		held.State != deploy.StateEnqueued || e.plugin.callCount(tick) != 0 {
		t.Fatalf("the deploy that holds the ID changed: %+v, %v", held, err)
	}
	conn, err := pgx.Connect(ctx, e.url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	var actor, reason string
	if err := conn.QueryRow(ctx, `SELECT actor, details->>'error' FROM manent.audit
		WHERE action = 'schedule.tick.failed' AND target = 'nightly'`).Scan(&actor, &reason); err != nil {
		t.Fatalf("audit entry of the failed tick: %v", err)
	}
	if actor != "token:ci" || reason != want {
		t.Fatalf("audit entry by %s: %q, want token:ci: %q", actor, reason, want)
	}
}
