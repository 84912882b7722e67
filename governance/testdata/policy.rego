# The Rego equivalent of manent.yml in this directory.
package manent.governance

approval_rules := [
	{"name": "prod-eu", "match": {"environment": "prod", "labels": {"region": "eu"}}, "count": 2, "groups": ["release-managers"], "expiry_seconds": 3600},
	{"name": "prod", "match": {"environment": "prod"}, "count": 1, "groups": [], "expiry_seconds": 86400},
]

promotion_rules := [{"name": "staging-first", "match": {"application": "hello", "environment": "prod"}, "from": "staging", "soak_ns": 3600000000000, "in_service": true}]

change_rules := [{"name": "prod-change", "match": {"environment": "prod", "labels": {"change": "yes"}}, "connector": "servicenow"}]

# An absent match field matches anything; every label given must be equal.
matches(m) if {
	object.get(m, "tenant", input.tenant) == input.tenant
	object.get(m, "application", input.application) == input.application
	object.get(m, "environment", input.environment) == input.environment
	every k, v in object.get(m, "labels", {}) {
		input.labels[k] == v
	}
}

# Freezes: the policy says which window is in force; manent refuses the
# deploy, or records the override.
freezes contains {"window": "sunday", "until": w.until} if {
	input.environment == "prod"
	w := manent.recurring_window("0 0 * * SUN", "24h", "UTC", input.time_ns)
}

freezes contains {"window": "year-end", "until": "2027-01-02T00:00:00Z"} if {
	input.tenant == "demo"
	input.labels.region == "us"
	input.time_ns >= time.parse_rfc3339_ns("2026-12-24T00:00:00Z")
	input.time_ns < time.parse_rfc3339_ns("2027-01-02T00:00:00Z")
}

what := sprintf("%s %s", [input.artifact.name, input.artifact.version])

succeeded(env) := manent.succeeded_deploys(input.tenant, input.application, env, input.artifact.name, input.artifact.version)

in_service(env) if {
	some e in input.inventory
	e.environment == env
	e.artifact.name == input.artifact.name
	e.artifact.version == input.artifact.version
}

promotion_problem(r) := sprintf("%s has not succeeded in %s", [what, r.from]) if {
	count(succeeded(r.from)) == 0
} else := sprintf("%s is no longer in service in %s", [what, r.from]) if {
	r.in_service
	not in_service(r.from)
} else := sprintf("%s succeeded in %s %s ago, soak is %s", [what, r.from, manent.format_duration(input.time_ns - oldest), manent.format_duration(r.soak_ns)]) if {
	oldest := min([s.finished_at_ns | some s in succeeded(r.from)])
	input.time_ns - oldest < r.soak_ns
}

# The newest success old enough.
satisfied_by(r) := best[1] if {
	best := max([[s.finished_at_ns, s.id] |
		some s in succeeded(r.from)
		input.time_ns - s.finished_at_ns >= r.soak_ns
	])
}

matched_approvals := [r | some r in approval_rules; matches(r.match)]

matched_changes := [r | some r in change_rules; matches(r.match)]

matched_promotions := [r | some r in promotion_rules; matches(r.match)]

satisfied_promotions := [{"from": r.from, "satisfied_by": satisfied_by(r)} |
	some r in matched_promotions
	not promotion_problem(r)
]

refusals contains {"path": "governance.promotion", "message": promotion_problem(r)} if {
	some r in matched_promotions
}

rules contains r.name if some r in matched_promotions

rules contains matched_approvals[0].name

rules contains matched_changes[0].name

approvals_part := {"approvals": object.remove(matched_approvals[0], ["name", "match"])} if count(matched_approvals) > 0
else := {}

change_part := {"change": {"connector": matched_changes[0].connector}} if count(matched_changes) > 0
else := {}

# Several windows in force: any one of them refuses the deploy.
freeze_part := {"freeze": in_force[0]} if {
	in_force := sort(freezes)
	count(in_force) > 0
} else := {}

promotion_part := {"promotion": satisfied_promotions[0]} if count(satisfied_promotions) > 0
else := {}

decision := object.union_n([
	{"rules": rules, "refusals": refusals},
	approvals_part, change_part, freeze_part, promotion_part,
])
