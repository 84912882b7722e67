// Package governance decides whether a submission may proceed and what it
// must wait for (approvals, change ticket), from the YAML rules of manent.yml
// or a Rego policy, behind deploy.Governor.
//
// It imports deploy, config, github.com/robfig/cron/v3,
// github.com/open-policy-agent/opa/v1 and the standard library.
package governance
