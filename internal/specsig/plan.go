package specsig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"manent.dev/manent/deploy"
)

// The signature of each specification says what a custom step does, not
// which steps a deploy runs: whoever writes a workflow's input could drop
// a mandatory custom step (a control), reorder the steps, put in a signed
// step the descriptor turned off, or move a plan to another deploy. The
// plan's signature covers that: the manifest of the plan, bound to what it
// runs as.

// manifestForm starts the bytes a plan's signature covers, so that they
// can never be taken for a specification's canonical form (a JSON object).
const manifestForm = "manent plan manifest 1\n"

// manifest is what a plan runs as. The engine reads the application and
// environment of the descriptor and the tenant of the effective deploy, and
// either of each elsewhere: both are covered.
type manifest struct {
	Tenant      string `json:"tenant"`
	Application string `json:"application"`
	Environment string `json:"environment"`
	Effective   struct {
		Tenant      string `json:"tenant"`
		Application string `json:"application"`
		Environment string `json:"environment"`
		DryRun      bool   `json:"dry_run"`
	} `json:"effective"`
	// Deploy is the deploy's ID; Schedule, instead, the recurring schedule
	// whose every tick runs the plan under an ID of its own.
	Deploy   string         `json:"deploy,omitempty"`
	Schedule string         `json:"schedule,omitempty"`
	DryRun   bool           `json:"dry_run"`
	Steps    []manifestStep `json:"steps"`
}

type manifestStep struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	Mandatory  bool   `json:"mandatory"`
	MaxRetries int    `json:"max_retries"`
	Timeout    int64  `json:"timeout"`
	SpecHash   string `json:"spec_hash,omitempty"`
}

// planMessage is the manifest of j's plan, running as the deploy j.ID or,
// with schedule, as the ticks of that schedule.
func planMessage(j deploy.Job, schedule string) []byte {
	m := manifest{Tenant: j.Descriptor.Tenant, Application: j.Descriptor.Application, Environment: j.Descriptor.Environment,
		DryRun: j.Descriptor.DryRun, Steps: make([]manifestStep, len(j.Plan.Steps))}
	m.Effective.Tenant, m.Effective.Application, m.Effective.Environment = j.Effective.Tenant, j.Effective.Application, j.Effective.Environment
	m.Effective.DryRun = j.Effective.DryRun
	if schedule != "" {
		m.Schedule = schedule
	} else {
		m.Deploy = j.ID
	}
	for i, s := range j.Plan.Steps {
		m.Steps[i] = manifestStep{Name: s.Name, Type: s.Type, Mandatory: s.Mandatory, MaxRetries: s.MaxRetries,
			Timeout: int64(s.Timeout), SpecHash: s.SpecHash}
	}
	// Strings, numbers and booleans only: encoding/json cannot fail here.
	b, _ := json.Marshal(m)
	return append([]byte(manifestForm), b...)
}

// SignPlan signs the plan of j, as j will run: the deploy j.ID, or, when
// schedule is set, the ticks of that schedule (j is its template, whose
// ticks take IDs of their own). Seal has given the plan's custom steps
// their spec hashes. Without keys the plan is left unsigned.
func (k *Keyring) SignPlan(j *deploy.Job, schedule string) {
	j.Plan.Signature = ""
	if k.Signs() {
		j.Plan.Signature = sign(k.keys[0], planMessage(*j, schedule))
	}
}

// VerifyPlan checks, before a deploy's work, that one of the keys signed
// its plan as this deploy runs it: its ID (a tick's is its schedule's) and
// its steps. Without keys every plan is accepted. A refusal is permanent
// and wraps ErrUnsigned or ErrBadSignature; it names the deploy, never a
// step's specification.
func (k *Keyring) VerifyPlan(j deploy.Job) error {
	if !k.Signs() {
		return nil
	}
	refuse := func(reason error, what string) error {
		return deploy.Permanent(fmt.Errorf("the plan of deploy %s: %s: %w", j.ID, what, reason))
	}
	if j.Plan.Signature == "" {
		return refuse(ErrUnsigned, "pipeline.custom.spec_key_refs requires signed plans")
	}
	schedule, _ := deploy.TickSchedule(j.ID)
	msg := planMessage(j, schedule)
	got, err := hex.DecodeString(j.Plan.Signature)
	if err == nil {
		for _, key := range k.keys {
			m := hmac.New(sha256.New, key)
			m.Write(msg)
			if hmac.Equal(m.Sum(nil), got) {
				return nil
			}
		}
	}
	return refuse(ErrBadSignature, "no key of pipeline.custom.spec_key_refs signed its steps, their order, types and spec hashes for this deploy")
}
