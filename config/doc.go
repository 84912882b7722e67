// Package config loads and validates manent.yml and the environment
// configurations, and merges a descriptor with its environment configuration
// under the descriptor policy into the effective deploy and its plan.
//
// It imports deploy, descriptor, internal/yamltree, internal/urltemplate,
// internal/jsonpath, internal/placeholder, internal/safehttp (the addresses manent never calls), internal/itsm (the connectors' configuration type, a known exception to
// the direction of imports: see docs/architecture.md), go.yaml.in/yaml/v3,
// github.com/robfig/cron/v3 and the standard library.
package config
