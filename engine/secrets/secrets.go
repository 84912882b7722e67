package secrets

import (
	"context"
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

// File reads file:PATH, a path inside Root (relative paths are relative to it).
type File struct{ Root string }

// Scheme implements deploy.SecretProvider.
func (File) Scheme() string { return "file" }

// Resolve implements deploy.SecretProvider. The trailing newline of the file
// is dropped, as editors add one.
func (p File) Resolve(_ context.Context, ref string) (string, error) {
	rel := strings.TrimPrefix(ref, "file:")
	path := rel
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.Root, path)
	}
	path = filepath.Clean(path)
	root := filepath.Clean(p.Root)
	if r, err := filepath.Rel(root, path); err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return "", deploy.Permanentf("secret reference file:%s: outside the secrets root", rel)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return "", deploy.Permanentf("secret reference file:%s: no such file", rel)
		}
		// A temporary I/O problem (NFS, permissions being fixed) may pass.
		return "", fmt.Errorf("secret reference file:%s: cannot read", rel)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
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
