package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// Retention runs once per UTC day, at its start: a chain of workflows, one
// per day, whose IDs are the days (manent:retention:<YYYY-MM-DD>). Each
// sleeps until its day begins (a durable timer), removes what the
// retention allows, and enqueues the next day's. A worker that starts
// enqueues today's: DBOS keeps one workflow per ID, so neither several
// workers nor restarts run a day twice, and a chain broken by downtime
// resumes with the day the worker came back.

const (
	stepRetentionReached = "retention.reached"
	stepRetentionPurge   = "retention.purge"
	stepRetentionNext    = "retention.next"
	retentionDayLayout   = "2006-01-02"
)

func retentionWorkflowID(day time.Time) string {
	return "manent:retention:" + day.UTC().Format(retentionDayLayout)
}

// startRetention enqueues today's retention workflow.
func (e *Engine) startRetention() error {
	return e.enqueueRetention(time.Now().UTC().Format(retentionDayLayout))
}

func (e *Engine) enqueueRetention(day string) error {
	at, err := time.Parse(retentionDayLayout, day)
	if err != nil {
		return fmt.Errorf("retention day %q: %w", day, err)
	}
	_, err = dbos.Enqueue[string](e.dbos, waitQueue, retentionWorkflowName, day,
		dbos.WithEnqueueWorkflowID(retentionWorkflowID(at)),
		dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion))
	if err != nil {
		return fmt.Errorf("enqueue retention workflow: %w", err)
	}
	return nil
}

func (e *Engine) retentionWorkflow(ctx dbos.Context, day string) (string, error) {
	at, err := time.Parse(retentionDayLayout, day)
	if err != nil {
		return "", fmt.Errorf("retention day %q: %w", day, err)
	}
	for {
		// One Recv, then a recorded decision, as for schedules: a replay
		// takes the same steps whatever the time is now.
		if _, err := sleepOrWake(ctx, topicRetention, time.Until(at)); err != nil {
			return "", fmt.Errorf("wait for the retention day: %w", err)
		}
		reached, err := dbos.RunAsStep(ctx, func(context.Context) (bool, error) {
			return !time.Now().Before(at), nil
		}, dbos.WithStepName(stepRetentionReached))
		if err != nil {
			return "", err
		}
		if reached {
			break
		}
	}
	r := e.cfg.Retention
	p, err := readStep(ctx, stepRetentionPurge, func(c context.Context) (deploy.Purged, error) {
		return e.store.Purge(c, deploy.RetentionActor, deploy.Retention{Deployments: time.Duration(r.Deployments),
			Logs: time.Duration(r.Logs), Audit: time.Duration(r.Audit), Dora: time.Duration(r.Dora)})
	})
	if err != nil {
		return "", fmt.Errorf("retention of %s: %w", day, err)
	}
	next := at.AddDate(0, 0, 1).Format(retentionDayLayout)
	if _, err := readStep(ctx, stepRetentionNext, func(context.Context) (bool, error) {
		return true, e.enqueueRetention(next)
	}); err != nil {
		return "", err
	}
	return fmt.Sprintf("removed %d deploys, %d log lines, %d audit entries", len(p.Deployments), p.Logs, p.Audit), nil
}
