package config

import "manent.dev/manent/internal/yamltree"

// checkStepTemplates holds the placeholders of a custom step to what it
// declares and to the outputs of the steps before it.
func (c *Config) checkStepTemplates(errs *yamltree.Errors, p string, s StepConfig, before map[string]map[string]bool) {
}
