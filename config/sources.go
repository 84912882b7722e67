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

// sourceField is the descriptor field a refused source is reported on.
const sourceField = "artifact.source"

// CheckSource is the spec's check 3 for an artifact source, run at
// submission and again before every download: the source must start with
// one of artifacts.sources, as written (no normalisation, so an allowed
// prefix cannot be reached by another spelling), and a file: source must
// be a name inside artifacts.file_root, never an absolute path. It reads no file: the server
// that takes a submission need not see the workers' files, so symbolic
// links are followed only by the artifacts step (ResolveFileSource,
// OpenFileSource). Its errors are EUNPROCESSABLE *deploy.Error with the
// field artifact.source.
func (c *Config) CheckSource(source string) error {
	u, err := url.Parse(source)
	if err != nil || u.User != nil {
		// A prefix such as http://127.0.0.1: would otherwise allow
		// http://127.0.0.1:80@elsewhere/.
		return sourceRefused(notAllowed)
	}
	allowed := false
	for _, p := range c.Artifacts.Sources {
		if strings.HasPrefix(source, p) {
			allowed = true
			break
		}
	}
	if !allowed {
		return sourceRefused(notAllowed)
	}
	if strings.HasPrefix(source, "file:") {
		if _, err := c.fileSourceRel(source); err != nil {
			return sourceRefused(err)
		}
	}
	return nil
}

// sourceProblem is why a source is refused, worded to follow its field or
// the words "artifact source": "artifact.source: is outside
// artifacts.file_root".
type sourceProblem string

func (p sourceProblem) Error() string { return string(p) }

const (
	notAllowed  sourceProblem = "is not allowed by artifacts.sources"
	outsideRoot sourceProblem = "is outside artifacts.file_root"
	// absolutePath is one answer for every absolute path, inside the root
	// or not: accepting those inside would tell a submitter where the root
	// is, one guess at a time.
	absolutePath sourceProblem = "is an absolute path: file: sources are names under artifacts.file_root"
	noFileRoot   sourceProblem = "is a file: source, and artifacts.file_root is not set"
	namesHost    sourceProblem = "is a file: source naming another host"
	notAFile     sourceProblem = "is not a valid file: source"
)

func sourceRefused(p error) error {
	return &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "artifact source refused",
		Fields: []deploy.FieldError{{Path: sourceField, Message: p.Error()}}}
}

// fileSourceError is the error of the artifacts step for a refused file:
// source: the step reports no descriptor field.
func fileSourceError(p error) error {
	return deploy.Errorf(deploy.EUNPROCESSABLE, "artifact source %v", p)
}

// ResolveFileSource returns the local path of a file: source: file:name.tgz,
// relative to artifacts.file_root (an absolute path is refused wherever it
// points). Symbolic links are followed when the file exists, so a link
// cannot lead out of the root. Errors are EUNPROCESSABLE *deploy.Error.
func (c *Config) ResolveFileSource(source string) (string, error) {
	rel, err := c.fileSourceRel(source)
	if err != nil {
		return "", fileSourceError(err)
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
		return "", fileSourceError(outsideRoot)
	}
	return path, nil
}

// OpenFileSource opens a file: source through os.Root, which refuses any
// path or symbolic link that leads out of artifacts.file_root at the time
// of opening.
func (c *Config) OpenFileSource(source string) (*os.File, error) {
	rel, err := c.fileSourceRel(source)
	if err != nil {
		return nil, fileSourceError(err)
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
// artifacts.file_root, refusing anything outside it. It reads nothing:
// its errors are sourceProblems.
func (c *Config) fileSourceRel(source string) (string, error) {
	u, err := url.Parse(source)
	if err != nil || u.Scheme != "file" {
		return "", notAFile
	}
	root := c.Artifacts.FileRoot
	if root == "" {
		return "", noFileRoot
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", namesHost
	}
	var p string
	if u.Opaque != "" {
		// file:name.tgz keeps its text in Opaque, still percent-encoded.
		if p, err = url.PathUnescape(u.Opaque); err != nil {
			return "", notAFile
		}
	} else {
		p = u.Path
	}
	if p == "" || strings.ContainsRune(p, 0) {
		return "", notAFile
	}
	if filepath.IsAbs(p) {
		return "", absolutePath
	}
	p = filepath.Clean(filepath.Join(root, p))
	if !inside(root, p) || p == filepath.Clean(root) {
		return "", outsideRoot
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return "", outsideRoot
	}
	return rel, nil
}

// inside reports whether path is root or below it (both clean).
func inside(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
