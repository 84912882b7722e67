package server

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"manent.dev/manent/deploy"
)

// maxDescriptor bounds a submitted descriptor; real ones are a few KiB.
const maxDescriptor = 1 << 20

// submitted is the answer to POST /api/v1/deployments. The status is 202
// whether the deploy was created now or existed with this ID (created
// false): either way it is durable and proceeds on its own.
type submitted struct {
	ID        string       `json:"id"`
	State     deploy.State `json:"state"`
	Created   bool         `json:"created"`
	StatusURL string       `json:"status_url"`
	EventsURL string       `json:"events_url"`
}

// scheduled is the answer to POST /api/v1/deployments for a schedule.cron
// descriptor, with the status 201: the recurring schedule was created or
// updated; its ticks are deploys <name>@<UTC time> with IDs of their own,
// so there is no status URL to follow.
type scheduled struct {
	ID       string       `json:"id"`
	State    deploy.State `json:"state"`
	Created  bool         `json:"created"`
	Schedule scheduleJSON `json:"schedule"`
}

type scheduleJSON struct {
	Name           string     `json:"name"`
	Tenant         string     `json:"tenant"`
	Application    string     `json:"application"`
	Environment    string     `json:"environment"`
	Cron           string     `json:"cron"`
	TimeZone       string     `json:"timezone"`
	Requester      string     `json:"requester"`
	State          string     `json:"state"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	LastTick       *time.Time `json:"last_tick"`
	NextTick       *time.Time `json:"next_tick"`
	LastDeployment *string    `json:"last_deployment"`
	LastError      *string    `json:"last_error"`
}

func toScheduled(sub *deploy.Submission) scheduled {
	s := sub.Schedule
	out := scheduled{ID: sub.Deployment.ID, State: sub.Deployment.State, Created: sub.Created, Schedule: scheduleJSON{
		Name: s.Name, Tenant: s.Tenant, Application: s.Application, Environment: s.Environment, Cron: s.Cron,
		TimeZone: s.TimeZone, Requester: s.Requester, State: s.State, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
		LastTick: s.LastTick, NextTick: s.NextTick,
	}}
	if s.LastDeployment != "" {
		out.Schedule.LastDeployment = &s.LastDeployment
	}
	if s.LastError != "" {
		out.Schedule.LastError = &s.LastError
	}
	return out
}

// planned is the answer to a validation: what would run, nothing stored.
type planned struct {
	Validated bool          `json:"validated"`
	Plan      []plannedStep `json:"plan"`
	// Rollout is the planned rollout; null for a deploy without one.
	Rollout   *rolloutPlanJSON `json:"rollout"`
	Effective effectiveJSON    `json:"effective"`
	Status    deploy.Status    `json:"status"`
}

// plannedStep is a step of the plan as readers see it: a custom step's
// type and spec_hash, never its specification (commands, URLs) nor its
// signature.
type plannedStep struct {
	Name           string `json:"name"`
	Type           string `json:"type"`
	SpecHash       string `json:"spec_hash,omitempty"`
	MaxRetries     int    `json:"max_retries"`
	TimeoutSeconds int64  `json:"timeout_seconds"`
	Mandatory      bool   `json:"mandatory"`
}

type effectiveJSON struct {
	Tenant         string                       `json:"tenant"`
	Application    string                       `json:"application"`
	Environment    string                       `json:"environment"`
	Artifact       deploy.Artifact              `json:"artifact"`
	Plugin         string                       `json:"plugin"`
	Targets        []targetJSON                 `json:"targets"`
	Params         map[string]string            `json:"params"`
	StepParams     map[string]map[string]string `json:"step_params"`
	Secrets        []string                     `json:"secrets"`
	Health         []healthJSON                 `json:"health"`
	DryRun         bool                         `json:"dry_run"`
	ConfigSource   string                       `json:"config_source,omitempty"`
	ConfigRevision string                       `json:"config_revision,omitempty"`
}

type targetJSON struct {
	Name string `json:"name"`
	Host string `json:"host,omitempty"`
	Port int    `json:"port,omitempty"`
	User string `json:"user,omitempty"`
	Path string `json:"path,omitempty"`
}

type healthJSON struct {
	URL            string `json:"url"`
	ExpectStatus   int    `json:"expect_status,omitempty"`
	TimeoutSeconds int64  `json:"timeout_seconds,omitempty"`
}

// submit handles POST /api/v1/deployments (validate=true runs the checks
// only) and POST /api/v1/deployments/plan (always checks only).
func (a *api) submit(validateOnly bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		validate := validateOnly
		if v := r.URL.Query().Get("validate"); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				writeError(w, r, a.log, &deploy.Error{Code: deploy.EINVALID, Message: "invalid request",
					Fields: []deploy.FieldError{{Path: "validate", Message: "must be true or false"}}})
				return
			}
			validate = validate || b
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxDescriptor))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			writeError(w, r, a.log, deploy.Errorf(deploy.EINVALID, "descriptor larger than %d bytes", maxDescriptor))
			return
		case err != nil:
			writeError(w, r, a.log, deploy.Errorf(deploy.EINVALID, "cannot read the request body"))
			return
		}
		sub, err := a.service.Submit(r.Context(), body, deploy.SubmitOptions{ValidateOnly: validate})
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		if validate {
			writeJSON(w, http.StatusOK, toPlanned(&sub.Deployment))
			return
		}
		if sub.Schedule != nil {
			writeJSON(w, http.StatusCreated, toScheduled(sub))
			return
		}
		d := sub.Deployment
		statusURL := "/api/v1/deployments/" + url.PathEscape(d.ID)
		w.Header().Set("Location", statusURL)
		writeJSON(w, http.StatusAccepted, submitted{
			ID: d.ID, State: d.State, Created: sub.Created,
			StatusURL: statusURL, EventsURL: statusURL + "/events",
		})
	}
}

// status handles GET /api/v1/deployments/{id}: the status JSON.
func (a *api) status(w http.ResponseWriter, r *http.Request) {
	d, err := a.service.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, deploy.NewStatus(d))
}

func toPlanned(d *deploy.Deployment) planned {
	e := d.Effective
	e.Artifact.Source = deploy.RedactURL(e.Artifact.Source)
	out := planned{
		Validated: true,
		Plan:      make([]plannedStep, len(d.Plan.Steps)),
		Rollout:   toRolloutPlanJSON(d.Plan.Rollout),
		Status:    deploy.NewStatus(d),
		Effective: effectiveJSON{
			Tenant: e.Tenant, Application: e.Application, Environment: e.Environment,
			Artifact: e.Artifact, Plugin: e.Plugin, Targets: make([]targetJSON, len(e.Targets)),
			Params: nonNilMap(e.Params), StepParams: e.StepParams, Secrets: make([]string, len(e.Secrets)),
			Health: make([]healthJSON, len(e.Health)), DryRun: e.DryRun,
			ConfigSource: e.ConfigSource, ConfigRevision: e.ConfigRevision,
		},
	}
	if out.Effective.StepParams == nil {
		out.Effective.StepParams = map[string]map[string]string{}
	}
	for i, s := range d.Plan.Steps {
		out.Plan[i] = plannedStep{Name: s.Name, Type: s.Type, SpecHash: s.SpecHash, MaxRetries: s.MaxRetries,
			TimeoutSeconds: int64(s.Timeout.Seconds()), Mandatory: s.Mandatory}
	}
	for i, t := range e.Targets {
		out.Effective.Targets[i] = targetJSON{Name: t.Name(), Host: t.Host, Port: t.Port, User: t.User, Path: t.Path}
	}
	// Names only: where a secret is read from is configuration, not output.
	for i, s := range e.Secrets {
		out.Effective.Secrets[i] = s.Name
	}
	for i, h := range e.Health {
		out.Effective.Health[i] = healthJSON{URL: deploy.RedactURL(h.URL), ExpectStatus: h.ExpectStatus, TimeoutSeconds: int64(h.Timeout.Seconds())}
	}
	return out
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
