// Package yamltree reads one YAML or JSON document into a node tree and decodes
// it strictly, collecting every unknown key, wrong type and duplicate key with
// its path, so descriptor and configuration errors can all be reported at once.
//
// It imports go.yaml.in/yaml/v3, deploy and the standard library.
package yamltree
