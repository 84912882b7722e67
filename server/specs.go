package server

import (
	"context"
	"fmt"
	"log/slog"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/secrets"
	"manent.dev/manent/internal/specsig"
)

// secretProviders are the secret providers every secret reference of the
// environment configurations (and of the plans they went into) resolves
// through.
func secretProviders(cfg *config.Config) (secrets.Env, secrets.File) {
	return secrets.Env{Prefix: cfg.Secrets.EnvPrefix}, secrets.File{Root: cfg.Secrets.FileRoot}
}

// engineSecrets are the providers of the engine's steps.
func engineSecrets(cfg *config.Config) []deploy.SecretProvider {
	env, file := secretProviders(cfg)
	return []deploy.SecretProvider{env, file}
}

// keyReader reads the spec keys, which live where secretProviders cannot
// read: the rule for where keys live is secrets.Keys'.
func keyReader(cfg *config.Config) secrets.Keys {
	env, file := secretProviders(cfg)
	return secrets.Keys{Env: env, File: file, Dir: cfg.Dir}
}

// specKeyring resolves the keys of pipeline.custom.spec_key_refs, once, at
// start-up: a key that cannot be read or is too short stops the start
// (naming its reference, never its value). Without keys, a pipeline with
// custom steps runs their specifications unsigned, and the log says so.
func specKeyring(ctx context.Context, cfg *config.Config, log *slog.Logger) (*specsig.Keyring, error) {
	cu := cfg.Pipeline.Custom
	keys, err := specsig.ResolveKeys(ctx, keyReader(cfg), cu.SpecKeyRefs)
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
