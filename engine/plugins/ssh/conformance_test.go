package ssh

import (
	"context"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/plugins/plugintest"
)

func TestConformance(t *testing.T) {
	plugintest.Run(t, func(t *testing.T) plugintest.Harness {
		// Three logins: one alone on its host, two sharing another.
		return &harness{f: newFleet(t, 1, 2)}
	})
}

// harness runs the suite over a fleet.
type harness struct{ f *fleet }

var _ plugintest.LoginHarness = (*harness)(nil)

func (h *harness) Plugin() deploy.Plugin { return h.f.plugin() }

func (h *harness) Targets() []deploy.Target { return h.f.targets }

func (h *harness) Params() map[string]string { return map[string]string{"path": h.f.path} }

func (h *harness) SSH() *deploy.SSHLogin { return &deploy.SSHLogin{KeySecret: keySecret} }

func (h *harness) Secret(ctx context.Context, name string) (string, error) {
	return h.f.secret(ctx, name)
}

func (h *harness) Artifact(version string) (plugintest.Artifact, error) {
	a := h.f.artifact(version)
	return plugintest.Artifact{Path: a.path, SHA256: a.sha256}, nil
}

func (h *harness) Current(t deploy.Target) (string, error) { return h.f.current(t) }

func (h *harness) Releases(t deploy.Target) ([]string, error) { return h.f.releases(t) }

func (h *harness) Journal(t deploy.Target) ([]plugintest.Entry, error) {
	lines, err := h.f.journal(t)
	if err != nil {
		return nil, err
	}
	var entries []plugintest.Entry
	for _, l := range lines {
		entries = append(entries, plugintest.Entry{Op: l[1] + " " + l[4], Key: l[3]})
	}
	return entries, nil
}
