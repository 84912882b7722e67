package secrets

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
)

// The spec keys are read by Keys alone: a key in the reach of the
// providers of environment configurations (an env: variable with their
// prefix, a file inside their root, written so or reached through a
// symbolic link) stops the start, and no key Keys reads can be read by
// them, whatever reference a configuration or the database holds.
func TestSpecKeysStayOutOfReachOfSecretReferences(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "secrets")
	keys := filepath.Join(dir, "keys")
	for _, d := range []string{root, keys} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := func(to, from string) {
		t.Helper()
		if err := os.Symlink(to, from); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(keys, "spec"), "outside-key\n")
	write(filepath.Join(root, "in-root"), "inside-key\n")
	// A key path that leads into the root, and a link in the root to a key
	// outside (which File refuses: it leads out of the root).
	link(filepath.Join(root, "in-root"), filepath.Join(keys, "to-root"))
	link(filepath.Join(keys, "spec"), filepath.Join(root, "to-key"))
	// A root written through a link: what File reads is where it leads.
	link(keys, filepath.Join(dir, "root-link"))
	t.Setenv("MANENT_SECRET_SPEC_KEY", "prefixed-key")
	t.Setenv("MANENT_SPEC_KEY", "env-key")

	env := Env{Prefix: "MANENT_SECRET_"}
	tests := []struct {
		name, root, ref string
		want, err       string
	}{
		{name: "a variable outside the prefix", ref: "env:MANENT_SPEC_KEY", want: "env-key"},
		{name: "a file outside the root", ref: "file:keys/spec", want: "outside-key"},
		{name: "an absolute file outside the root", ref: "file:" + filepath.Join(keys, "spec"), want: "outside-key"},
		{name: "a variable with the prefix", ref: "env:MANENT_SECRET_SPEC_KEY",
			err: "a key must not start with MANENT_SECRET_, the prefix of the variables environment configurations may read"},
		{name: "a file inside the root", ref: "file:secrets/in-root",
			err: "inside secrets.file_root, where environment configurations read their secrets"},
		{name: "a file inside the root by dot-dot", ref: "file:keys/../secrets/in-root",
			err: "inside secrets.file_root, where environment configurations read their secrets"},
		{name: "a link into the root", ref: "file:keys/to-root",
			err: "a symbolic link leads into secrets.file_root"},
		{name: "a root that is a link to the keys", root: filepath.Join(dir, "root-link"), ref: "file:keys/spec",
			err: "a symbolic link leads into secrets.file_root"},
		{name: "a root that holds /proc, variable", root: "/", ref: "env:MANENT_SPEC_KEY",
			err: "secrets.file_root holds /proc"},
		{name: "a missing file", ref: "file:keys/none", err: "secret reference file:keys/none: no such file"},
		{name: "another scheme", ref: "vault:x", err: "a key is env:NAME or file:path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := File{Root: root}
			if tt.root != "" {
				file.Root = tt.root
			}
			got, err := Keys{Env: env, File: file, Dir: dir}.Resolve(context.Background(), tt.ref)
			if tt.err != "" {
				if err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("%s: %q, %v; want a permanent error %q", tt.ref, got, err, tt.err)
				}
				if strings.Contains(err.Error(), "-key") {
					t.Errorf("the error shows a key: %v", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("%s: %q, %v; want %q", tt.ref, got, err, tt.want)
			}
			// What Keys reads, no reference of an environment configuration
			// (nor one changed in the database) reads.
			secrets := Resolver{"env": env, "file": file}
			for _, ref := range []string{tt.ref, "file:" + filepath.Join(keys, "spec"), "file:../keys/spec", "file:to-key"} {
				if v, err := secrets.Resolve(context.Background(), ref); err == nil {
					t.Errorf("the secret reference %s reads a key: %q", ref, v)
				}
			}
		})
	}
}
