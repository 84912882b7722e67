package config

import (
	"errors"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/placeholder"
	"manent.dev/manent/internal/yamltree"
)

// checkStepTemplates holds the placeholders of a custom step, in its run
// and its dry run, to what it declares (its parameters), to the outputs
// the custom steps above it declare and to the standard steps above it
// (above holds both); .Response only in poll.url.
// What a placeholder may do in each place (a command's argument, a URL, a
// header, a JSON body) is the placeholder package's rule.
func (c *Config) checkStepTemplates(errs *yamltree.Errors, p string, s StepConfig, above placeholder.Scope) {
	scope := placeholder.Scope{Params: map[string]bool{}, Outputs: above.Outputs, AnyOutputs: above.AnyOutputs}
	for name := range s.Params {
		scope.Params[name] = true
	}
	polled := scope
	polled.Response = true
	allowHTTP := c.Pipeline.Custom.AllowHTTP
	for _, run := range []struct {
		path string
		r    *RunConfig
	}{{p + ".run", s.Run}, {p + ".dry_run", s.DryRun}} {
		r := run.r
		if r == nil {
			continue
		}
		if s.Type == deploy.StepTypeCommand {
			if len(r.Command) > 0 {
				addPlaceholderError(errs, run.path+".command", placeholder.CheckCommand(r.Command, scope))
			}
			continue
		}
		if r.URL != "" {
			addPlaceholderError(errs, run.path+".url", placeholder.CheckURL(r.URL, scope, allowHTTP))
		}
		for _, name := range sortedKeys(r.Headers) {
			if headerNamePattern.MatchString(name) && !managedHeader(name) {
				addPlaceholderError(errs, yamltree.Key(run.path+".headers", name), placeholder.CheckHeader(r.Headers[name], scope))
			}
		}
		if r.JSON != nil && !errs.Bad(run.path+".json") {
			addPlaceholderError(errs, run.path+".json", placeholder.CheckJSON(r.JSON, scope))
		}
		if r.Poll != nil && r.Poll.URL != "" {
			addPlaceholderError(errs, run.path+".poll.url", placeholder.CheckURL(r.Poll.URL, polled, allowHTTP))
		}
	}
}

// addPlaceholderError records err at path, or below it at the part a
// *placeholder.PartError names ([2] for a command's third element,
// .tags[0] in a body).
func addPlaceholderError(errs *yamltree.Errors, path string, err error) {
	if err == nil {
		return
	}
	var pe *placeholder.PartError
	if errors.As(err, &pe) {
		errs.Add(path+pe.Path, "%s", pe.Err.Error())
		return
	}
	errs.Add(path, "%s", err.Error())
}
