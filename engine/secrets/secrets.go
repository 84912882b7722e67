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

// Env reads env:NAME from the worker's environment. Only names with Prefix
// may be read, so a reference cannot pull DATABASE_URL or a cloud credential.
type Env struct{ Prefix string }

// Scheme implements deploy.SecretProvider.
func (Env) Scheme() string { return "env" }

// Resolve implements deploy.SecretProvider.
func (p Env) Resolve(_ context.Context, ref string) (string, error) {
	name := strings.TrimPrefix(ref, "env:")
	if name == "" || (p.Prefix != "" && !strings.HasPrefix(name, p.Prefix)) {
		return "", deploy.Permanentf("secret reference env:%s: only variables starting with %s may be read", name, p.Prefix)
	}
	v, ok := os.LookupEnv(name)
	if !ok {
		return "", deploy.Permanentf("secret reference env:%s: variable not set", name)
	}
	return v, nil
}

// File reads file:PATH, a path inside Root (relative paths are relative to
// it), opened through os.Root: neither the path nor a symbolic link on the
// way may lead out of Root.
type File struct{ Root string }

// Scheme implements deploy.SecretProvider.
func (File) Scheme() string { return "file" }

// Resolve implements deploy.SecretProvider. The trailing newline of the file
// is dropped, as editors add one. Errors name the reference, never where a
// link leads.
func (p File) Resolve(_ context.Context, ref string) (string, error) {
	rel := strings.TrimPrefix(ref, "file:")
	name, ok := p.inside(rel)
	if !ok {
		return "", deploy.Permanentf("secret reference file:%s: outside the secrets root", rel)
	}
	root, err := os.OpenRoot(p.Root)
	if err != nil {
		return "", fmt.Errorf("secret reference file:%s: cannot open the secrets root", rel)
	}
	defer func() { _ = root.Close() }()
	b, err := root.ReadFile(name)
	switch {
	case err == nil:
		return strings.TrimRight(string(b), "\r\n"), nil
	case errors.Is(err, os.ErrNotExist):
		return "", deploy.Permanentf("secret reference file:%s: no such file", rel)
	case p.escapes(name):
		return "", deploy.Permanentf("secret reference file:%s: a symbolic link that leads out of the secrets root", rel)
	}
	// A temporary I/O problem (NFS, permissions being fixed) may pass.
	return "", fmt.Errorf("secret reference file:%s: cannot read", rel)
}

// inside is rel as a local path under Root, when it names one.
func (p File) inside(rel string) (string, bool) {
	name := rel
	if filepath.IsAbs(name) {
		r, err := filepath.Rel(filepath.Clean(p.Root), filepath.Clean(name))
		if err != nil {
			return "", false
		}
		name = r
	}
	name = filepath.Clean(name)
	return name, filepath.IsLocal(name)
}

// escapes reports whether the links on the way to name lead out of Root
// (os.Root refused it for that, or for a reason this tells apart).
func (p File) escapes(name string) bool {
	root, err := filepath.EvalSymlinks(p.Root)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, name))
	if err != nil {
		// A link to nothing outside (os.Root refuses it before looking
		// for its target) or a loop of links: neither names a file inside.
		return true
	}
	r, err := filepath.Rel(root, real)
	return err != nil || !filepath.IsLocal(r)
}

// Resolver resolves references with a set of providers.
type Resolver map[string]deploy.SecretProvider

// Resolve finds the provider of ref's scheme.
func (r Resolver) Resolve(ctx context.Context, ref string) (string, error) {
	scheme, _, ok := strings.Cut(ref, ":")
	if !ok {
		return "", deploy.Permanentf("secret reference %q has no scheme", ref)
	}
	p, ok := r[scheme]
	if !ok {
		return "", deploy.Permanentf("secret reference %q: no provider for %s:", ref, scheme)
	}
	return p.Resolve(ctx, ref)
}
