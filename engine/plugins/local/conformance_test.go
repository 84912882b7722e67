package local

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/plugins/plugintest"
)

func TestConformance(t *testing.T) {
	plugintest.Run(t, newHarness)
}

// harness is three target directories: two given relative to the base
// directory, as manent.yml gives them, and one absolute.
type harness struct {
	t         *testing.T
	base      string
	targets   []deploy.Target
	artifacts map[string]plugintest.Artifact
}

func newHarness(t *testing.T) plugintest.Harness {
	return &harness{
		t:         t,
		base:      t.TempDir(),
		targets:   []deploy.Target{{Path: "web-1"}, {Path: "web-2"}, {Path: t.TempDir()}},
		artifacts: map[string]plugintest.Artifact{},
	}
}

func (h *harness) Plugin() deploy.Plugin { return New(h.base) }

func (h *harness) Targets() []deploy.Target { return h.targets }

func (h *harness) Params() map[string]string { return nil }

func (h *harness) Secret(_ context.Context, name string) (string, error) {
	return "", fmt.Errorf("the local plugin reads no secret, asked for %q", name)
}

func (h *harness) Artifact(version string) (plugintest.Artifact, error) {
	if a, ok := h.artifacts[version]; ok {
		return a, nil
	}
	path := writeArchive(h.t, map[string]string{"VERSION": version, "www/index.html": "<h1>" + version + "</h1>"})
	b, err := os.ReadFile(path)
	if err != nil {
		return plugintest.Artifact{}, err
	}
	sum := sha256.Sum256(b)
	a := plugintest.Artifact{Path: path, SHA256: hex.EncodeToString(sum[:])}
	h.artifacts[version] = a
	return a, nil
}

func (h *harness) dir(t deploy.Target) string {
	if filepath.IsAbs(t.Path) {
		return t.Path
	}
	return filepath.Join(h.base, t.Path)
}

// Current reads the symlink, and refuses one that does not lead to a
// release the plugin unpacked.
func (h *harness) Current(t deploy.Target) (string, error) {
	link, err := os.Readlink(filepath.Join(h.dir(t), "current"))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	version, ok := strings.CutPrefix(link, "releases/")
	if !ok || strings.Contains(version, "/") {
		return "", fmt.Errorf("current -> %s, not a release", link)
	}
	if _, err := os.Stat(filepath.Join(h.dir(t), link, marker)); err != nil {
		return "", fmt.Errorf("current -> %s: %w", link, err)
	}
	return version, nil
}

// Releases lists releases/, without the staging directories (hidden).
func (h *harness) Releases(t deploy.Target) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(h.dir(t), "releases"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var versions []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			versions = append(versions, e.Name())
		}
	}
	return versions, nil
}

func (h *harness) Journal(t deploy.Target) ([]plugintest.Entry, error) {
	lines, err := journalLines(h.dir(t))
	if err != nil {
		return nil, err
	}
	var entries []plugintest.Entry
	for _, f := range lines {
		entries = append(entries, plugintest.Entry{Op: f[1] + " " + f[4], Key: f[3]})
	}
	return entries, nil
}
