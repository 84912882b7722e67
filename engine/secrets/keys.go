package secrets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"manent.dev/manent/deploy"
)

// Keys reads the references of the keys that sign the specifications of
// custom steps (pipeline.custom.spec_key_refs). A key must stay out of
// reach of Env and File, the providers every other secret reference goes
// through: an environment configuration, which an application team
// writes, or a reference changed in the database, could otherwise hand the
// key to a command step's targets or to an HTTP step's peer, and with it
// the power to sign any specification. So a key is an env: variable
// without Env's prefix, or a file: file outside File's root, judged after
// symbolic links are resolved, read by Keys alone.
type Keys struct {
	Env  Env
	File File
	// Dir is what relative file: paths are relative to: the directory of
	// manent.yml.
	Dir string
}

// Resolve reads a key. Errors name the reference, never a value; every one
// is permanent (the server does not start).
func (k Keys) Resolve(_ context.Context, ref string) (string, error) {
	scheme, rest, _ := strings.Cut(ref, ":")
	root, err := k.realRoot()
	if err != nil {
		return "", fmt.Errorf("secret reference %s: cannot resolve secrets.file_root: %w", ref, err)
	}
	// Through /proc an environment configuration would read the server's
	// environment and any file it has open.
	if inside(root, "/proc") {
		return "", deploy.Permanentf("secret reference %s: secrets.file_root holds /proc, through which environment configurations could read a key", ref)
	}
	switch scheme {
	case "env":
		if rest == "" || strings.HasPrefix(rest, k.Env.Prefix) {
			return "", deploy.Permanentf("secret reference %s: a key must not start with %s, the prefix of the variables environment configurations may read", ref, k.Env.Prefix)
		}
		v, ok := os.LookupEnv(rest)
		if !ok {
			return "", deploy.Permanentf("secret reference %s: variable not set", ref)
		}
		return v, nil
	case "file":
		return k.readFile(ref, rest, root)
	}
	return "", deploy.Permanentf("secret reference %q: a key is env:NAME or file:path", ref)
}

func (k Keys) readFile(ref, path, root string) (string, error) {
	if path == "" {
		return "", deploy.Permanentf("secret reference %s: no file named", ref)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(k.Dir, path)
	}
	if inside(filepath.Clean(k.File.Root), filepath.Clean(path)) {
		return "", deploy.Permanentf("secret reference %s: inside secrets.file_root, where environment configurations read their secrets", ref)
	}
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", deploy.Permanentf("secret reference %s: no such file", ref)
	}
	if err != nil {
		return "", fmt.Errorf("secret reference %s: cannot read", ref)
	}
	if inside(root, real) {
		return "", deploy.Permanentf("secret reference %s: a symbolic link leads into secrets.file_root, where environment configurations read their secrets", ref)
	}
	b, err := os.ReadFile(real)
	if err != nil {
		return "", fmt.Errorf("secret reference %s: cannot read", ref)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// realRoot is File's root with its symbolic links resolved: what File
// really reads. A root that does not exist yet is taken as written.
func (k Keys) realRoot() (string, error) {
	root, err := filepath.Abs(k.File.Root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(root)
	if errors.Is(err, os.ErrNotExist) {
		return filepath.Clean(root), nil
	}
	return real, err
}

// inside reports whether path is root or under it; both are clean.
func inside(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && filepath.IsLocal(rel)
}
