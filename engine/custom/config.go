package custom

import (
	"cmp"

	"manent.dev/manent/engine/steps"
	"manent.dev/manent/internal/sshcommand"
)

// allowHTTP reports whether pipeline.custom.allow_http lets HTTP steps use
// http:// URLs, as the configuration of the process says now.
func allowHTTP(c *steps.Context) bool {
	return c.Env != nil && c.Env.Config != nil && c.Env.Config.Pipeline.Custom.AllowHTTP
}

// secretsDir is pipeline.custom.secrets_dir, where a command step's
// secrets go on the targets.
func secretsDir(c *steps.Context) string {
	if c.Env == nil || c.Env.Config == nil {
		return sshcommand.DefaultSecretsDir
	}
	return cmp.Or(c.Env.Config.Pipeline.Custom.SecretsDir, sshcommand.DefaultSecretsDir)
}
