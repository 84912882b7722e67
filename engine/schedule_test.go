package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// TestRecurringSchedule: a cron schedule is created (SCHEDULED), starts a
// deploy <name>@<time> at its tick that runs the captured plan, is updated
// by resubmitting and stops when deleted.
func TestRecurringSchedule(t *testing.T) {
	t.Parallel() // waits for a wall-clock minute
	e := newEnv(t)
	doc := strings.Replace(descriptorFor("nightly", "app", "staging"), "artifact:", "schedule: {cron: \"* * * * *\"}\nartifact:", 1)
	sub, err := e.eng.Submit(e.ctx, []byte(doc), deploy.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Schedule == nil || sub.Deployment.State != deploy.StateScheduled || sub.Schedule.Generation != 1 {
		t.Fatalf("submission = %+v", sub)
	}
	list, err := e.eng.Schedules(e.ctx)
	if err != nil || len(list) != 1 || list[0].Name != "nightly" {
		t.Fatalf("schedules = %+v, %v", list, err)
	}
	// The first tick comes within a minute: its deploy runs the plan. The
	// deploy's creation is an event.
	ctx, cancel := context.WithTimeout(e.ctx, 90*time.Second)
	defer cancel()
	events := e.events.Subscribe(ctx, "")
	var tickDeploy string
	for tickDeploy == "" {
		select {
		case ev := <-events:
			if strings.HasPrefix(ev.DeploymentID, "nightly@") {
				tickDeploy = ev.DeploymentID
			}
		case <-ctx.Done():
			t.Fatal("no deploy started by the schedule within 90s")
		}
	}
	e.waitState(tickDeploy, deploy.StateSuccess)
	// Resubmitting updates it (a new generation); deleting stops it.
	sub, err = e.eng.Submit(e.ctx, []byte(strings.Replace(doc, "* * * * *", "0 3 * * *", 1)), deploy.SubmitOptions{})
	if err != nil || sub.Schedule.Generation != 2 || sub.Schedule.Cron != "0 3 * * *" {
		t.Fatalf("update = %+v, %v", sub, err)
	}
	viewer := deploy.WithIdentity(e.ctx, deploy.Identity{Subject: "token:viewer"})
	if err := e.eng.DeleteSchedule(viewer, "nightly"); deploy.ErrorCode(err) != deploy.EFORBIDDEN {
		t.Fatalf("viewer delete: %v, want FORBIDDEN", err)
	}
	if err := e.eng.DeleteSchedule(e.ctx, "nightly"); err != nil {
		t.Fatal(err)
	}
	if list, _ := e.eng.Schedules(e.ctx); len(list) != 0 {
		t.Fatalf("schedules after delete = %+v", list)
	}
	if err := e.eng.DeleteSchedule(e.ctx, "nightly"); deploy.ErrorCode(err) != deploy.ENOTFOUND {
		t.Fatalf("second delete: %v, want NOT_FOUND", err)
	}
}

// TestScheduleSurvivesRestart: a schedule goes on ticking after its worker
// restarted with the same executor ID.
func TestScheduleSurvivesRestart(t *testing.T) {
	t.Parallel() // waits for wall-clock minutes
	first := newEnvWith(t, envOptions{executorID: "cron"})
	doc := strings.Replace(descriptorFor("every-minute", "app", "qa"), "artifact:", "schedule: {cron: \"* * * * *\"}\nartifact:", 1)
	if _, err := first.eng.Submit(first.ctx, []byte(doc), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	waitTick := func(e *env, not string) string {
		ctx, cancel := context.WithTimeout(e.ctx, 150*time.Second)
		defer cancel()
		events := e.events.Subscribe(ctx, "")
		for {
			page, err := e.store.List(ctx, deploy.ListFilter{})
			if err == nil {
				for _, d := range page.Items {
					if strings.HasPrefix(d.ID, "every-minute@") && d.ID != not {
						return d.ID
					}
				}
			}
			select {
			case <-events:
			case <-ctx.Done():
				t.Fatalf("no tick after %q", not)
			}
		}
	}
	one := waitTick(first, "")
	first.waitState(one, deploy.StateSuccess)
	_ = first.eng.Shutdown(5 * time.Second)

	second := newEnvWith(t, envOptions{url: first.url, dir: first.dir, executorID: "cron", plugin: first.plugin})
	two := waitTick(second, one)
	second.waitState(two, deploy.StateSuccess)
}
