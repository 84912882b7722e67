package service

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"manent.dev/manent/deploy"
)

// ErrImportsNotReady: a producer of the deploy's imports has not succeeded
// yet; the config step tries again.
var ErrImportsNotReady = errors.New("imports of the deploy are not ready yet")

// Configure is what the config step of a deploy decides when it runs: its
// imports resolved for the requester, the environment configuration valid
// now merged with the descriptor under the descriptor policy, and the
// targets checked by the plugin, so a deploy that waited runs with today's
// configuration. The outputs record the file and revision used, and the
// releases imports read. Refusals are permanent; ErrImportsNotReady and
// store errors are not. When the rollout rejects a target, the Effective
// returned with the refusal holds only the plan refused (RolloutPlan),
// which the status shows: the targets as they are now, the rejected ones
// with their reasons.
func (s *Service) Configure(ctx context.Context, who deploy.Identity, d deploy.Descriptor) (deploy.Effective, map[string]string, error) {
	applied, imported, _, err := s.withImports(ctx, who, &d)
	if err == nil && len(d.Imports) > 0 && len(imported.Sources) == 0 {
		err = ErrImportsNotReady
	}
	if err != nil {
		return deploy.Effective{}, nil, permanentRefusal(err)
	}
	eff, envSources, err := s.effective(ctx, who, applied)
	if err != nil {
		return deploy.Effective{RolloutPlan: eff.RolloutPlan}, nil, permanentRefusal(err)
	}
	eff.DryRun = d.DryRun
	out := map[string]string{
		"source":   eff.ConfigSource,
		"revision": eff.ConfigRevision,
		"plugin":   eff.Plugin,
		"targets":  strconv.Itoa(len(eff.Targets)),
		"rollback": rollbackOutput(eff.Rollback),
	}
	// The engine runs this plan, made from the configuration valid now
	// (effective refused a rejected target already), and the status shows it.
	if rp, _ := planRollout(eff); rp != nil {
		out["rollout"] = rolloutOutput(rp)
		eff.RolloutPlan = rp
	}
	sourcesOutput(imported, out)
	for k, v := range envSources {
		out[k] = v
	}
	return eff, out, nil
}

func rollbackOutput(p deploy.RollbackPolicy) string {
	if !p.Enabled {
		return "disabled"
	}
	return fmt.Sprintf("on %v", p.On)
}

// permanentRefusal marks a refusal of the configuration or of the policy
// permanent: retrying the step cannot change it.
func permanentRefusal(err error) error {
	if deploy.ErrorCode(err) == deploy.EUNPROCESSABLE || deploy.ErrorCode(err) == deploy.EINVALID {
		return deploy.Permanent(err)
	}
	return err
}

// Recheck runs governance again when the deploy runs: a freeze window that
// started after the deploy was submitted stops it (unless its
// freezeOverride was accepted then, from someone who still holds
// deployment.freeze-override), and so does a policy that now refuses it (a
// promotion no longer in service, a Rego rule). note says why a freeze was
// overridden, for the log.
func (s *Service) Recheck(ctx context.Context, who deploy.Identity, d deploy.Descriptor) (note string, err error) {
	if s.gov == nil || d.DryRun {
		return "", nil
	}
	in, err := s.governanceInput(ctx, who, &d, time.Now().UTC())
	if err != nil {
		return "", err
	}
	if d.FreezeOverride != nil {
		res := deploy.Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
		if ok, err := s.authz.Allowed(who, res, deploy.PermFreezeOverride); err != nil {
			return "", fmt.Errorf("authorize: %w", err)
		} else if !ok {
			d.FreezeOverride, in.FreezeOverride = nil, ""
		}
	}
	fr, err := s.gov.Frozen(ctx, in)
	if err != nil {
		return "", fmt.Errorf("check freeze windows: %w", err)
	}
	if fr != nil && d.FreezeOverride == nil {
		return "", deploy.Permanentf("freeze window %s is in force until %s: the deploy does not run in it",
			fr.Window, fr.Until.UTC().Format(time.RFC3339))
	}
	if fr != nil {
		note = fmt.Sprintf("freeze window %s in force until %s: overridden (%s)",
			fr.Window, fr.Until.UTC().Format(time.RFC3339), d.FreezeOverride.Reason)
	}
	if _, err := s.gov.Decide(ctx, in); err != nil {
		if deploy.ErrorCode(err) == deploy.EUNPROCESSABLE {
			return "", deploy.Permanent(fmt.Errorf("governance refuses the deploy now: %w", err))
		}
		return "", fmt.Errorf("governance: %w", err)
	}
	return note, nil
}

// WaveFrozen returns the freeze window in force now that selects one of
// targets (a wave of the deploy's rollout) by their labels: the wave is
// deferred until it ends, unless the deploy's freezeOverride is accepted
// (Overridden, with the same permission as for a whole environment). nil
// without governance, in a dry run, or when no window selects them.
func (s *Service) WaveFrozen(ctx context.Context, who deploy.Identity, d deploy.Descriptor, targets []deploy.Target) (*deploy.Freeze, error) {
	tf, ok := s.gov.(deploy.TargetFreezes)
	if !ok || d.DryRun {
		return nil, nil
	}
	in, err := s.governanceInput(ctx, who, &d, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	if d.FreezeOverride != nil {
		res := deploy.Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
		if ok, err := s.authz.Allowed(who, res, deploy.PermFreezeOverride); err != nil {
			return nil, fmt.Errorf("authorize: %w", err)
		} else if !ok {
			in.FreezeOverride = ""
		}
	}
	fr, err := tf.FrozenTargets(ctx, in, targets)
	if err != nil {
		return nil, fmt.Errorf("check freeze windows: %w", err)
	}
	return fr, nil
}

// FreezeInForce returns the freeze window in force now over the deploy's
// environment or one of targets, in a dry run as in a deploy: a dry run is
// not held by governance, but the custom steps that act on targets are
// skipped in one (docs/custom-steps.md). Overridden says the descriptor's
// freezeOverride would be accepted (its requester holds the permission).
// nil without governance or when no window is in force.
func (s *Service) FreezeInForce(ctx context.Context, who deploy.Identity, d deploy.Descriptor, targets []deploy.Target) (*deploy.Freeze, error) {
	if s.gov == nil {
		return nil, nil
	}
	in, err := s.governanceInput(ctx, who, &d, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	if d.FreezeOverride != nil {
		res := deploy.Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
		if ok, err := s.authz.Allowed(who, res, deploy.PermFreezeOverride); err != nil {
			return nil, fmt.Errorf("authorize: %w", err)
		} else if !ok {
			in.FreezeOverride = ""
		}
	}
	fr, err := s.gov.Frozen(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("check freeze windows: %w", err)
	}
	if fr == nil {
		if tf, ok := s.gov.(deploy.TargetFreezes); ok && len(targets) > 0 {
			if fr, err = tf.FrozenTargets(ctx, in, targets); err != nil {
				return nil, fmt.Errorf("check freeze windows: %w", err)
			}
		}
	}
	if fr != nil {
		fr.Overridden = in.FreezeOverride != ""
	}
	return fr, nil
}

// SubmitMember submits a deploy of a release with the identity in ctx (the
// release's requester): the release's workflow queues its deploys with it.
func (s *Service) SubmitMember(ctx context.Context, d deploy.Descriptor, opts deploy.SubmitOptions) (*deploy.Submission, error) {
	return s.submitDescriptor(ctx, &d, opts)
}
