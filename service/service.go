package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
	"manent.dev/manent/internal/specsig"
)

// Store is what the service reads and writes, by role.
type Store interface {
	deploy.DeploymentReader
	deploy.Submissions
	deploy.AuditLog
	deploy.AuditReader
	deploy.ReleaseStore
	deploy.ScheduleStore
	deploy.RolloutRequests
	// Prerequisites returns, by ID, the deploys among ids that exist: what
	// a submission checks of those its after: names, in one read.
	Prerequisites(ctx context.Context, ids []string) (map[string]deploy.Prerequisite, error)
}

// Engine is the port to the durable side: the service stores what it
// accepted and hands the workflows to the engine, in the same transaction
// where it says so (tx is the store's *sql.Tx).
type Engine interface {
	// EnqueueDeploy enqueues the workflow that runs j on its environment's queue.
	EnqueueDeploy(tx any, j deploy.Job) error
	// EnqueueWait enqueues the wait of j: what it waits for, then its deploy.
	EnqueueWait(tx any, j deploy.Job, w deploy.WaitPlan) error
	// EnqueueRelease enqueues the workflow that follows a composite release.
	EnqueueRelease(tx any, p deploy.ReleasePlan) error
	// EnqueueSchedule enqueues the workflow of a schedule generation.
	EnqueueSchedule(tx any, g deploy.ScheduleGeneration) error
	// StopSchedule tells the workflows of a schedule generation to stop now
	// rather than at their tick.
	StopSchedule(name string, generation int, lastTick *time.Time)
	// Answered wakes the wait of a deploy whose approval was answered, on
	// tx, the transaction that stores the answer.
	Answered(tx any, id string) error
	// Cancelled follows up a cancel the store accepted: the wait or the
	// queued workflow stops, the deploys waiting on it look again, a change
	// ticket opened for it is closed.
	Cancelled(ctx context.Context, d *deploy.Deployment, res deploy.CancelResult)
	// Rejected follows up a rejection that ended a deploy (its wait was
	// woken with it: Answered): the deploys and the release waiting on it
	// look again.
	Rejected(ctx context.Context, id string)
	// StopRelease stops the workflow of a release: it queues and rolls back
	// nothing more.
	StopRelease(id string)
	// RolloutRequested wakes the workflow of a deploy whose rollout a person
	// asked something of (a request, a wave's answer), on tx, the
	// transaction that stores it.
	RolloutRequested(tx any, id string) error
	// ReplayCallbacks sends the dead (and, when disabled, the disabled)
	// deliveries of a deploy's callbacks again, deliveryID "" for all.
	ReplayCallbacks(ctx context.Context, id, deliveryID string, disabled bool) ([]deploy.Delivery, error)
}

// Options wires a Service.
type Options struct {
	Config     *config.Config
	Store      Store
	Authorizer deploy.Authorizer
	// Governor evaluates freezes, promotion, approvals and change rules;
	// nil means no governance.
	Governor deploy.Governor
	// Changes are the ITSM connectors that change rules name.
	Changes map[string]deploy.ChangeConnector
	// Plugins check the targets of a submission.
	Plugins []deploy.Plugin
	// Specs seals the specifications of custom steps in every plan (their
	// hash, and their signature when it has keys); nil hashes them only.
	Specs  *specsig.Keyring
	Logger *slog.Logger
	// Outcomes reads what the DORA metrics are computed from; nil serves
	// none.
	Outcomes OutcomeReader
}

// Service is the application service: every method authorizes the
// identity in its context, runs the checks of the spec in its order and
// reads the read model; durable work goes to the Engine.
type Service struct {
	cfg      *config.Config
	store    Store
	authz    deploy.Authorizer
	gov      deploy.Governor
	changes  map[string]deploy.ChangeConnector
	plugins  map[string]deploy.Plugin
	engine   Engine
	specs    *specsig.Keyring
	log      *slog.Logger
	outcomes OutcomeReader
}

var _ deploy.Service = (*Service)(nil)

// New returns a Service; Use gives it its engine before it serves.
func New(o Options) (*Service, error) {
	if o.Config == nil || o.Store == nil || o.Authorizer == nil {
		return nil, errors.New("service: config, store and authorizer are required")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := &Service{cfg: o.Config, store: o.Store, authz: o.Authorizer, gov: o.Governor, changes: o.Changes,
		plugins: map[string]deploy.Plugin{}, specs: o.Specs, log: o.Logger, outcomes: o.Outcomes}
	for _, p := range o.Plugins {
		s.plugins[p.Name()] = p
	}
	return s, nil
}

// Use gives the service the engine it hands durable work to. The engine
// itself calls back into the service (the config step, a release's
// deploys), so the two are wired in two steps.
func (s *Service) Use(e Engine) { s.engine = e }

func (s *Service) readable(id deploy.Identity, res deploy.Resource) bool {
	ok, err := s.authz.Allowed(id, res, deploy.PermRead)
	return err == nil && ok
}

func (s *Service) require(id deploy.Identity, res deploy.Resource, perm string) error {
	ok, err := s.authz.Allowed(id, res, perm)
	if err != nil {
		return fmt.Errorf("authorize: %w", err)
	}
	if !ok {
		return deploy.Errorf(deploy.EFORBIDDEN, "%s does not hold %s on %s/%s", id.Subject, perm, res.Tenant, res.Object())
	}
	return nil
}

func (s *Service) audit(ctx context.Context, actor, action, target string, details map[string]any) {
	err := s.store.AppendAudit(ctx, deploy.AuditEntry{Time: time.Now().UTC(), Actor: actor, Action: action, Target: target, Details: details})
	if err != nil {
		s.log.Error("append audit entry", "action", action, "target", target, "error", err)
	}
}

// resourceProblem is EINVALID when res (its tenant filled in) does not
// name an environment, what in words: no read is made for a name that
// cannot exist, and the caller learns which is wrong.
func resourceProblem(res deploy.Resource, what string) error {
	var fields []deploy.FieldError
	for _, f := range []struct{ path, name string }{
		{"tenant", res.Tenant}, {"application", res.Application}, {"environment", res.Environment},
	} {
		if msg := descriptor.NameProblem(f.name); msg != "" {
			fields = append(fields, deploy.FieldError{Path: f.path, Message: msg})
		}
	}
	if fields == nil {
		return nil
	}
	return &deploy.Error{Code: deploy.EINVALID, Message: "invalid " + what, Fields: fields}
}

func resourceOf(d *deploy.Deployment) deploy.Resource {
	return deploy.Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
}
