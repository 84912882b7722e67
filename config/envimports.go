package config

import (
	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
	"manent.dev/manent/internal/yamltree"
)

// Messages of the import checks of an environment configuration; the rules
// are the descriptor's, with the keys spelled as in this file.
const (
	msgEnvChainName = "name must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter"
	msgEnvName      = "must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter or digit"
)

type rawEnvImport struct {
	Deployment string         `yaml:"deployment"`
	Current    *rawEnvCurrent `yaml:"current"`
}

type rawEnvCurrent struct {
	Application string `yaml:"application"`
	Environment string `yaml:"environment"`
	Artifact    string `yaml:"artifact"`
	Tenant      string `yaml:"tenant"`
}

type rawEnvImportRef struct {
	Import string `yaml:"import"`
	Export string `yaml:"export"`
}

// checkEnvImports checks imports, targets_from and params_from. Only
// current imports are allowed: an environment configuration is read by
// every deploy of the application, and no deploy ID is known in advance.
func checkEnvImports(errs *yamltree.Errors, raw *rawEnvConfig) {
	if len(raw.Imports) > deploy.MaxImports {
		errs.Add("imports", "at most %d imports are allowed, found %d", deploy.MaxImports, len(raw.Imports))
	} else {
		used := map[string]bool{}
		for _, r := range raw.TargetsFrom {
			used[r.Import] = true
		}
		for _, r := range raw.ParamsFrom {
			used[r.Import] = true
		}
		for _, name := range sortedKeys(raw.Imports) {
			checkEnvImport(errs, name, raw.Imports[name], used[name])
		}
	}
	checkEnvTargetsFrom(errs, raw)
	checkEnvParamsFrom(errs, raw)
}

func checkEnvImport(errs *yamltree.Errors, name string, imp rawEnvImport, used bool) {
	p := yamltree.Key("imports", name)
	if !descriptor.ValidParamName(name) {
		errs.Add(p, msgEnvChainName)
	}
	switch {
	case errs.Bad(p+".deployment") || errs.Bad(p+".current"):
	case imp.Deployment != "":
		errs.Add(p+".deployment", "an environment configuration can only import releases in service (current)")
	case imp.Current == nil && !errs.Bad(p):
		errs.Add(p, "needs current (the release in service of an application)")
	}
	if c := imp.Current; c != nil {
		cp := p + ".current"
		switch {
		case errs.Bad(cp + ".application"):
		case c.Application == "":
			errs.Add(cp+".application", "is required")
		case !descriptor.ValidName(c.Application):
			errs.Add(cp+".application", msgEnvName)
		}
		for _, f := range []struct{ key, v string }{
			{"environment", c.Environment}, {"artifact", c.Artifact}, {"tenant", c.Tenant},
		} {
			if f.v != "" && !descriptor.ValidName(f.v) {
				errs.Add(cp+"."+f.key, msgEnvName)
			}
		}
	}
	if !used {
		errs.Add(p, "is not used by targets_from or params_from")
	}
}

func checkEnvTargetsFrom(errs *yamltree.Errors, raw *rawEnvConfig) {
	tf := raw.TargetsFrom
	if len(tf) > 0 && len(raw.Targets) > 0 {
		errs.Add("targets_from", "conflicts with targets: the targets come either from the file or from imports, not both")
	}
	if len(tf) > descriptor.MaxTargetsFrom {
		errs.Add("targets_from", "at most %d entries are allowed, found %d", descriptor.MaxTargetsFrom, len(tf))
		return
	}
	seen := map[rawEnvImportRef]int{}
	for i, r := range tf {
		p := yamltree.Index("targets_from", i)
		if errs.Bad(p) {
			continue
		}
		checkEnvImportRef(errs, p, r, raw.Imports)
		if first, dup := seen[r]; dup && r.Import != "" && r.Export != "" {
			errs.Add(p, "%s.%s is already listed (targets_from[%d])", r.Import, r.Export, first)
		} else if !dup {
			seen[r] = i
		}
	}
}

func checkEnvParamsFrom(errs *yamltree.Errors, raw *rawEnvConfig) {
	pf := raw.ParamsFrom
	if len(pf) > descriptor.MaxParams {
		errs.Add("params_from", "at most %d parameters are allowed, found %d", descriptor.MaxParams, len(pf))
		return
	}
	for _, k := range sortedKeys(pf) {
		p := yamltree.Key("params_from", k)
		// Taken before the checks below add to it: only a value of the
		// wrong shape should silence the checks of the reference.
		shapeBad := errs.Bad(p)
		if !descriptor.ValidParamName(k) {
			errs.Add(p, msgEnvChainName)
		}
		if _, both := raw.Params[k]; both {
			errs.Add(p, "is also in params: a parameter comes either from the file or from an import")
		}
		if !shapeBad {
			checkEnvImportRef(errs, p, pf[k], raw.Imports)
		}
	}
}

func checkEnvImportRef(errs *yamltree.Errors, p string, r rawEnvImportRef, imports map[string]rawEnvImport) {
	switch _, declared := imports[r.Import]; {
	case r.Import == "":
		if !errs.Bad(p + ".import") {
			errs.Add(p+".import", "is required")
		}
	case !declared:
		errs.Add(p+".import", "%s is not declared in imports", r.Import)
	}
	switch {
	case r.Export == "":
		if !errs.Bad(p + ".export") {
			errs.Add(p+".export", "is required")
		}
	case !descriptor.ValidParamName(r.Export):
		errs.Add(p+".export", msgEnvChainName)
	}
}

func envImports(raw map[string]rawEnvImport) map[string]deploy.Import {
	if len(raw) == 0 {
		return nil
	}
	out := make(map[string]deploy.Import, len(raw))
	for name, imp := range raw {
		i := deploy.Import{Deployment: imp.Deployment}
		if c := imp.Current; c != nil {
			i.Current = &deploy.CurrentImport{Application: c.Application, Environment: c.Environment, Artifact: c.Artifact, Tenant: c.Tenant}
		}
		out[name] = i
	}
	return out
}

func envTargetsFrom(raw []rawEnvImportRef) []deploy.ImportRef {
	if len(raw) == 0 {
		return nil
	}
	out := make([]deploy.ImportRef, len(raw))
	for i, r := range raw {
		out[i] = deploy.ImportRef(r)
	}
	return out
}

func envParamsFrom(raw map[string]rawEnvImportRef) map[string]deploy.ImportRef {
	if len(raw) == 0 {
		return nil
	}
	out := make(map[string]deploy.ImportRef, len(raw))
	for k, r := range raw {
		out[k] = deploy.ImportRef(r)
	}
	return out
}
