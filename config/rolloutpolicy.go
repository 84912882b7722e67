package config

import (
	"cmp"
	"strings"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/placeholder"
	"manent.dev/manent/internal/urltemplate"
	"manent.dev/manent/internal/yamltree"
)

// The fences of an environment's rollout that a descriptor cannot move,
// whatever descriptor_policy.rollout lets it change: what its targets'
// labels may decide, and where its gates may make the worker call.

// checkTargetLabels refuses the labels of a descriptor's targets (its own
// or those its targetsFrom imports: both are descriptor additions) that a
// selector of the environment's rollout reads where the descriptor policy
// keeps that selector the environment's: the rule and exclude always, the
// waves' select unless descriptor_policy.rollout is all (which lets a
// descriptor write waves of its own anyway). Otherwise the descriptor would
// decide what the selector decides: label every target into the canary
// wave, so the wave with an approval after it is empty and asks nothing, or
// label a host os: linux to pass a rule it does not meet. Labels that no
// such selector reads are the descriptor's to give.
func checkTargetLabels(errs *yamltree.Errors, targets []deploy.Target, env *deploy.RolloutSpec, policy string) {
	if env == nil {
		return
	}
	type reader struct{ path, decides string }
	readers := map[string]reader{}
	read := func(s *deploy.Selector, path, decides string) {
		if s == nil {
			return
		}
		for _, k := range sortedKeys(s.Labels) {
			if _, ok := readers[k]; !ok {
				readers[k] = reader{path, decides}
			}
		}
	}
	read(env.Rule, "rollout.rule", "whether a target passes the rule")
	read(env.Exclude, "rollout.exclude", "whether a target is excluded")
	if policy != RolloutPolicyAll {
		for i, w := range env.Waves {
			read(w.Select, yamltree.Index("rollout.waves", i)+".select", "which wave a target is in")
		}
	}
	if len(readers) == 0 {
		return
	}
	why := "descriptor_policy.rollout is " + cmp.Or(policy, RolloutPolicyNone)
	if policy == RolloutPolicyAll {
		why = "the environment's rule and exclude always stand"
	}
	for i, t := range targets {
		for _, k := range sortedKeys(t.Labels) {
			r, ok := readers[k]
			if !ok {
				continue
			}
			errs.Add(yamltree.Key(yamltree.Index("deploy.targets", i)+".labels", k),
				"%s: forbidden: %s of the environment configuration reads this label, and %s is the environment configuration's to decide, not the descriptor's (%s)",
				t.Name(), r.path, r.decides, why)
		}
	}
}

// checkDescriptorGates refuses the gates of a descriptor (under
// descriptor_policy.rollout: all) that would make the worker call a host
// of the descriptor's choosing: the worker sits inside the network, and
// the status shows every answer's status code, so such a gate would probe
// any internal address for whoever writes the application's repository. An
// HTTP gate may call the targets themselves ({{ .Target.Host }} as the
// whole host); any gate may call a URL under one of
// descriptor_policy.gate_urls, the platform's allow-list.
func checkDescriptorGates(errs *yamltree.Errors, gates []deploy.GateSpec, allowed []string) {
	for i, g := range gates {
		p := yamltree.Index("rollout.gates", i)
		switch {
		case g.HTTP != nil:
			if !callsItsTargets(g.HTTP.URL) && !gateURLAllowed(g.HTTP.URL, allowed) {
				errs.Add(p+".http.url", "forbidden: a descriptor's http gate calls its targets ({{ .Target.Host }} as the whole host) or a URL under pipeline.descriptor_policy.gate_urls, no other host")
			}
		case g.Prometheus != nil:
			if !gateURLAllowed(g.Prometheus.URL, allowed) {
				errs.Add(p+".prometheus.url", "forbidden: a descriptor's prometheus gate must be under one of pipeline.descriptor_policy.gate_urls: give the gate in the environment configuration, or ask for its Prometheus to be listed")
			}
		}
	}
}

func callsItsTargets(raw string) bool {
	tpl, err := urltemplate.ParseHost(raw, deploy.GatePlaceholders, deploy.GateHostPlaceholders)
	return err == nil && tpl.HostIs("Target.Host")
}

// gateURLAllowed reports whether raw starts with one of allowed, as
// written (no normalisation, as artifacts.sources: another spelling of an
// allowed URL is refused, never the reverse), and has no . or .. path
// segment that would climb out of the prefix's path once the server
// resolves it.
func gateURLAllowed(raw string, allowed []string) bool {
	if dotSegment(raw) {
		return false
	}
	for _, prefix := range allowed {
		if strings.HasPrefix(raw, prefix) {
			return true
		}
	}
	return false
}

// dotSegment reports whether the path of raw has a . or .. segment as a
// lenient server reads it (placeholder.DotSegment: encoded, doubly
// encoded, with a path parameter, after a backslash).
func dotSegment(raw string) bool {
	_, rest, _ := strings.Cut(raw, "://")
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	_, path, _ := strings.Cut(rest, "/")
	return placeholder.DotSegment(path)
}
