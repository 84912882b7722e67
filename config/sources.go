package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"manent.dev/manent/deploy"
)

// CheckSource returns an EUNPROCESSABLE *deploy.Error unless the artifact
// source starts with one of artifacts.sources, as written (no
// normalisation, so an allowed prefix cannot be reached by another spelling).
func (c *Config) CheckSource(source string) error {
	refused := deploy.Errorf(deploy.EUNPROCESSABLE, "artifact source not allowed by artifacts.sources")
	u, err := url.Parse(source)
	if err != nil || u.User != nil {
		// A prefix such as http://127.0.0.1: would otherwise allow
		// http://127.0.0.1:80@elsewhere/.
		return refused
	}
	for _, p := range c.Artifacts.Sources {
		if strings.HasPrefix(source, p) {
			return nil
		}
	}
	return refused
}

// ResolveFileSource returns the local path of a file: source: file:name.tgz
// relative to artifacts.file_root, or file:///abs/name.tgz, which must be
// inside it. Symbolic links are followed when the file exists, so a link
// cannot lead out of the root. Errors are EUNPROCESSABLE *deploy.Error.
func (c *Config) ResolveFileSource(source string) (string, error) {
	rel, err := c.fileSourceRel(source)
	if err != nil {
		return "", err
	}
	root := c.Artifacts.FileRoot
	path := filepath.Join(root, rel)
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, os.ErrNotExist) {
		return path, nil
	}
	if err != nil {
		return "", fmt.Errorf("resolve file source: %w", err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("resolve file source: %w", err)
	}
	if !inside(realRoot, real) {
		return "", outsideRoot()
	}
	return path, nil
}

// OpenFileSource opens a file: source through os.Root, which refuses any
// path or symbolic link that leads out of artifacts.file_root at the time
// of opening.
func (c *Config) OpenFileSource(source string) (*os.File, error) {
	rel, err := c.fileSourceRel(source)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(c.Artifacts.FileRoot)
	if err != nil {
		return nil, fmt.Errorf("open artifacts.file_root: %w", err)
	}
	// The opened file stays valid after its root is closed, and closing a
	// directory handle cannot lose data.
	defer func() { _ = root.Close() }()
	f, err := root.Open(rel)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "artifact file not found: %s", source)
		}
		return nil, fmt.Errorf("open file source: %w", err)
	}
	return f, nil
}

// fileSourceRel returns the path of a file: source relative to
// artifacts.file_root, refusing anything outside it.
func (c *Config) fileSourceRel(source string) (string, error) {
	u, err := url.Parse(source)
	if err != nil || u.Scheme != "file" {
		return "", deploy.Errorf(deploy.EUNPROCESSABLE, "not a file: source")
	}
	root := c.Artifacts.FileRoot
	if root == "" {
		return "", deploy.Errorf(deploy.EUNPROCESSABLE, "file: sources need artifacts.file_root")
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", deploy.Errorf(deploy.EUNPROCESSABLE, "a file: source cannot name a host")
	}
	var p string
	if u.Opaque != "" {
		// file:name.tgz keeps its text in Opaque, still percent-encoded.
		if p, err = url.PathUnescape(u.Opaque); err != nil {
			return "", deploy.Errorf(deploy.EUNPROCESSABLE, "invalid file: source")
		}
	} else {
		p = u.Path
	}
	if p == "" || strings.ContainsRune(p, 0) {
		return "", deploy.Errorf(deploy.EUNPROCESSABLE, "invalid file: source")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	if !inside(root, p) || p == filepath.Clean(root) {
		return "", outsideRoot()
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return "", outsideRoot()
	}
	return rel, nil
}

func outsideRoot() error {
	return deploy.Errorf(deploy.EUNPROCESSABLE, "artifact source is outside artifacts.file_root")
}

// inside reports whether path is root or below it (both clean).
func inside(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
