// Package descriptor parses and validates manent/v1 documents, deploys
// (deploy.Descriptor) and composite releases (deploy.ReleaseDescriptor),
// reporting every problem at once with its path; it does no I/O beyond
// reading time zones (embedded) so it can be fuzzed. The rollout section,
// the same in a descriptor and an environment configuration, is checked
// here for both.
//
// It imports deploy, internal/yamltree, internal/urltemplate (the URLs of gates), internal/safehttp (the addresses gates never call), go.yaml.in/yaml/v3, github.com/robfig/cron/v3 and the standard library.
package descriptor
