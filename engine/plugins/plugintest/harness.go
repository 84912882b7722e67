package plugintest

import (
	"context"

	"manent.dev/manent/deploy"
)

// Harness is what the suite needs of a plugin and its targets. Each subtest
// takes a new Harness, over targets that are empty.
//
// Observations return errors rather than fail the test, so a harness over a
// network can report a lost connection as such.
type Harness interface {
	// Plugin returns a new instance of the plugin, as a new worker process
	// builds it: it shares nothing in memory with earlier instances, only
	// the targets.
	Plugin() deploy.Plugin
	// Targets are the targets of every request: at least two, the same on
	// every call.
	Targets() []deploy.Target
	// Params are the params of every request.
	Params() map[string]string
	// Secret is the requests' Secret: it resolves the secrets the params
	// name (a plugin that reads none may refuse every name).
	Secret(ctx context.Context, name string) (string, error)
	// Artifact is the artifact of a version, the same on every call; two
	// versions have different content. It unpacks to more than one entry
	// and more than one byte, so that limits of one refuse it.
	Artifact(version string) (Artifact, error)

	// Current is the version in service on the target, "" when none.
	Current(t deploy.Target) (string, error)
	// Releases are the versions on the target, in service or not, sorted.
	Releases(t deploy.Target) ([]string, error)
	// Journal is what the plugin actually did to the target, oldest first.
	Journal(t deploy.Target) ([]Entry, error)
}

// LoginHarness is a Harness whose targets are logged in to: the requests'
// SSH is its SSH.
type LoginHarness interface {
	Harness
	SSH() *deploy.SSHLogin
}

// Artifact is a verified artifact file, as the engine hands it to a plugin.
type Artifact struct {
	Path   string
	SHA256 string
}

// Entry is one operation the plugin performed on a target.
type Entry struct {
	// Op is the plugin's name for the operation; the suite only shows it.
	Op string
	// Key is the request's key for the target (PluginRequest.TargetKey).
	Key string
}
