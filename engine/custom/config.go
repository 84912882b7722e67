package custom

import "manent.dev/manent/engine/steps"

// allowHTTP reports whether pipeline.custom.allow_http lets HTTP steps use
// http:// URLs, as the configuration of the process says now.
func allowHTTP(c *steps.Context) bool {
	return c.Env != nil && c.Env.Config != nil && c.Env.Config.Pipeline.Custom.AllowHTTP
}
