// Package descriptor parses and validates manent/v1 documents, deploys
// (deploy.Descriptor) and composite releases (deploy.ReleaseDescriptor),
// reporting every problem at once with its path; it does no I/O beyond
// reading time zones (embedded) so it can be fuzzed.
//
// It imports deploy, internal/yamltree, go.yaml.in/yaml/v3, github.com/robfig/cron/v3 and the standard library.
package descriptor
