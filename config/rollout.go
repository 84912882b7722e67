package config

import (
	"maps"
	"slices"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
	"manent.dev/manent/internal/yamltree"
)

// mergeRollout decides the rollout of a deploy: the environment's, as a
// descriptor changes it where descriptor_policy.rollout allows, with the
// defaults applied; nil when neither gives one.
func mergeRollout(errs *yamltree.Errors, o *deploy.RolloutOverride, env *deploy.RolloutSpec, pol DescriptorPolicy) *deploy.RolloutSpec {
	var merged deploy.RolloutSpec
	switch policy := pol.Rollout; {
	case o == nil && env == nil:
		return nil
	case o == nil:
		merged = *env
	case policy == RolloutPolicyPacing && env == nil:
		errs.Add("rollout", "forbidden: the environment configuration has no rollout for descriptor_policy.rollout: pacing to slow down")
		return nil
	case policy == RolloutPolicyPacing:
		merged = pace(errs, o, *env)
	case policy == RolloutPolicyAll:
		checkDescriptorGates(errs, o.Gates, pol.GateURLs)
		merged = replaceRollout(errs, o, env)
	default:
		errs.Add("rollout", "forbidden: the descriptor policy does not let descriptors change the rollout (descriptor_policy.rollout is none)")
		return nil
	}
	out := merged.WithDefaults()
	return &out
}

const msgPacing = "forbidden: descriptor_policy.rollout is pacing, which lets a descriptor change only bake, max_failures and waves[].batch, bake and approval, toward more caution"

// pace applies a descriptor's rollout under descriptor_policy.rollout:
// pacing. Every change must make the rollout more cautious than the
// environment's: what goes in which wave, the gates and the policies stay
// the environment's.
func pace(errs *yamltree.Errors, o *deploy.RolloutOverride, env deploy.RolloutSpec) deploy.RolloutSpec {
	out := env.Clone()
	for _, k := range []struct {
		key   string
		given bool
	}{
		{"rule", o.Rule != nil}, {"exclude", o.Exclude != nil}, {"percentages", o.Percentages != nil},
		{"gates", o.Gates != nil}, {"no_data", o.NoData != ""}, {"on_failure", o.OnFailure != ""},
		{"pause_timeout", o.PauseTimeout != nil}, {"defer_timeout", o.DeferTimeout != nil},
	} {
		if k.given {
			errs.Add("rollout."+k.key, msgPacing)
		}
	}
	if o.Bake != nil {
		if *o.Bake < env.Bake {
			errs.Add("rollout.bake", "must be at least the environment configuration's (%s): pacing only slows a rollout down", env.Bake)
		} else {
			out.Bake = *o.Bake
		}
	}
	if o.MaxFailures != nil {
		if !fewerFailures(*o.MaxFailures, env.MaxFailures) {
			errs.Add("rollout.max_failures", "must be at most the environment configuration's (%s), written the same way (a count or a percentage): pacing only tolerates fewer failures", env.MaxFailures)
		} else {
			out.MaxFailures = *o.MaxFailures
		}
	}
	for i, w := range o.Waves {
		p := yamltree.Index("rollout.waves", i)
		j := waveIndex(env.Waves, w.Name)
		if j < 0 {
			errs.Add(p+".name", "no wave %s in the environment configuration's rollout: pacing changes its waves, it adds none", w.Name)
			continue
		}
		if w.Select != nil {
			errs.Add(p+".select", msgPacing)
		}
		if !w.Count.IsZero() {
			errs.Add(p+".count", msgPacing)
		}
		ew := &out.Waves[j]
		if !w.Batch.IsZero() {
			if !smallerBatch(w.Batch, env.Waves[j].Batch) {
				errs.Add(p+".batch", "must be at most the environment configuration's (%s), written the same way (a count or a percentage), or 1", env.Waves[j].Batch)
			} else {
				ew.Batch = w.Batch
			}
		}
		if w.Bake != nil {
			if least := env.WaveBake(j); *w.Bake < least {
				errs.Add(p+".bake", "must be at least the environment configuration's (%s): pacing only slows a rollout down", least)
			} else {
				b := *w.Bake
				ew.Bake = &b
			}
		}
		// Pacing adds approvals; false leaves the environment's.
		ew.Approval = ew.Approval || w.Approval
	}
	return out
}

func waveIndex(waves []deploy.WaveSpec, name string) int {
	for i, w := range waves {
		if w.Name == name {
			return i
		}
	}
	return -1
}

// smallerBatch reports whether batch a is never larger than limit: limit
// unset is the whole wave, a single target is the smallest batch, and
// otherwise both must be counts or both percentages for the comparison to
// hold for any fleet.
func smallerBatch(a, limit deploy.Amount) bool {
	switch {
	case limit.IsZero(), !a.Percent && a.N == 1:
		return true
	case a.Percent == limit.Percent:
		return a.N <= limit.N
	}
	return false
}

// fewerFailures reports whether max_failures a never tolerates more than
// limit (unset tolerates none).
func fewerFailures(a, limit deploy.Amount) bool {
	switch {
	case a.N == 0:
		return true
	case limit.IsZero():
		return false
	case a.Percent == limit.Percent:
		return a.N <= limit.N
	}
	return false
}

// replaceRollout applies a descriptor's rollout under
// descriptor_policy.rollout: all: each key given replaces the
// environment's (waves and percentages replace each other), except rule
// and exclude, which a descriptor may give only where the environment
// gives none: they are the environment's fences.
func replaceRollout(errs *yamltree.Errors, o *deploy.RolloutOverride, env *deploy.RolloutSpec) deploy.RolloutSpec {
	var out deploy.RolloutSpec
	if env != nil {
		out = env.Clone()
	}
	fence := func(key string, given, own *deploy.Selector) *deploy.Selector {
		switch {
		case given == nil:
			return own
		case own != nil && !maps.Equal(given.Labels, own.Labels):
			errs.Add("rollout."+key, "conflict: the environment configuration has its own %s, which always applies", key)
			return own
		}
		return given.Clone()
	}
	out.Rule = fence("rule", o.Rule, out.Rule)
	out.Exclude = fence("exclude", o.Exclude, out.Exclude)
	if o.Waves != nil {
		out.Waves, out.Percentages = deploy.RolloutSpec{Waves: o.Waves}.Clone().Waves, nil
		descriptor.CheckWaveOrder(errs, "rollout.waves", out.Waves)
	}
	if o.Percentages != nil {
		out.Waves, out.Percentages = nil, o.Percentages
	}
	if o.Bake != nil {
		out.Bake = *o.Bake
	}
	if o.MaxFailures != nil {
		out.MaxFailures = *o.MaxFailures
	}
	if o.Gates != nil {
		out.Gates = deploy.RolloutSpec{Gates: o.Gates}.Clone().Gates
	}
	if o.NoData != "" {
		out.NoData = o.NoData
	}
	if o.OnFailure != "" {
		out.OnFailure = o.OnFailure
	}
	if o.PauseTimeout != nil {
		out.PauseTimeout = *o.PauseTimeout
	}
	if o.DeferTimeout != nil {
		out.DeferTimeout = *o.DeferTimeout
	}
	return out
}

// checkGateSecrets records the Prometheus gates of an environment's rollout
// whose credentials name no secret of its secrets section: the worker
// resolves them by that name when it checks the gate, as the plugins do.
func checkGateSecrets(errs *yamltree.Errors, r *descriptor.RolloutDoc, secrets []rawSecret) {
	declared := func(name string) bool {
		return slices.ContainsFunc(secrets, func(s rawSecret) bool { return s.Name == name })
	}
	for i, g := range r.Gates {
		p := g.Prometheus
		if p == nil {
			continue
		}
		path := yamltree.Index("rollout.gates", i) + ".prometheus"
		if a := p.BasicAuth; a != nil && a.PasswordSecret != "" && !declared(a.PasswordSecret) {
			errs.Add(path+".basic_auth.password_secret", "must name a secret of the secrets section (%s is not one)", a.PasswordSecret)
		}
		if p.BearerSecret != "" && !declared(p.BearerSecret) {
			errs.Add(path+".bearer_secret", "must name a secret of the secrets section (%s is not one)", p.BearerSecret)
		}
	}
}
