package server

import (
	"context"
	"fmt"
	"log/slog"

	"manent.dev/manent/config"
	"manent.dev/manent/engine/secrets"
	"manent.dev/manent/internal/specsig"
)

// secretProviders are the secret providers of the configuration: the ones
// the steps resolve the environment configurations' secrets with, and the
// spec keys are resolved with.
func secretProviders(cfg *config.Config) secrets.Resolver {
	return secrets.Resolver{
		"env":  secrets.Env{Prefix: cfg.Secrets.EnvPrefix},
		"file": secrets.File{Root: cfg.Secrets.FileRoot},
	}
}

// specKeyring resolves the keys of pipeline.custom.spec_key_refs, once, at
// start-up: a key that cannot be read or is too short stops the start
// (naming its reference, never its value). Without keys, a pipeline with
// custom steps runs their specifications unsigned, and the log says so.
func specKeyring(ctx context.Context, cfg *config.Config, log *slog.Logger) (*specsig.Keyring, error) {
	cu := cfg.Pipeline.Custom
	keys, err := specsig.ResolveKeys(ctx, secretProviders(cfg), cu.SpecKeyRefs)
	if err != nil {
		return nil, fmt.Errorf("spec keys: %w", err)
	}
	if len(keys) == 0 && hasCustomSteps(cfg) {
		log.Warn("pipeline.custom.spec_key_refs is not set: the specifications of custom steps in stored plans are not signed, " +
			"so whoever can write to the database can change what they run")
	}
	return specsig.New(keys, cu.RevokedSpecs)
}

func hasCustomSteps(cfg *config.Config) bool {
	for _, s := range cfg.Pipeline.Steps {
		if s.Custom() {
			return true
		}
	}
	return false
}
