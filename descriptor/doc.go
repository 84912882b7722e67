// Package descriptor parses and validates manent/v1 descriptors into
// deploy.Descriptor, reporting every problem at once with its path; it is pure
// (no I/O) so it can be fuzzed.
//
// It imports deploy, internal/yamltree, go.yaml.in/yaml/v3 and the standard library.
package descriptor
