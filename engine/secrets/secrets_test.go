package secrets

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
)

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MANENT_SECRET_DB", "hunter2")
	t.Setenv("HOME_SECRET", "nope")
	r := Resolver{"env": Env{Prefix: "MANENT_SECRET_"}, "file": File{Root: dir}}
	tests := []struct {
		ref, want string
		permanent bool
	}{
		{ref: "env:MANENT_SECRET_DB", want: "hunter2"},
		{ref: "env:HOME_SECRET", permanent: true},
		{ref: "env:MANENT_SECRET_MISSING", permanent: true},
		{ref: "file:token", want: "s3cret"},
		{ref: "file:" + filepath.Join(dir, "token"), want: "s3cret"},
		{ref: "file:../etc/passwd", permanent: true},
		{ref: "file:/etc/passwd", permanent: true},
		{ref: "vault:x", permanent: true},
		{ref: "nothing", permanent: true},
	}
	for _, tt := range tests {
		got, err := r.Resolve(context.Background(), tt.ref)
		if tt.want != "" {
			if err != nil || got != tt.want {
				t.Errorf("%s: got %q, %v", tt.ref, got, err)
			}
			continue
		}
		if err == nil || deploy.IsPermanent(err) != tt.permanent {
			t.Errorf("%s: got %v, want permanent=%v", tt.ref, err, tt.permanent)
		}
		if err != nil && (strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "nope")) {
			t.Errorf("%s: error leaks a secret: %v", tt.ref, err)
		}
	}
}

// A file: secret is opened through os.Root: a symbolic link out of the
// secrets root is refused with an error that names the reference, never
// where the link leads, while a link that stays inside is read.
func TestFileSecretsStayInTheirRoot(t *testing.T) {
	outside := t.TempDir()
	target := filepath.Join(outside, "stolen")
	if err := os.WriteFile(target, []byte("not-for-you\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "real"), []byte("inside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"to-file":      target,
		"sub/relative": filepath.Join("..", "..", filepath.Base(outside), "stolen"),
		"to-dir":       outside,
		"to-nothing":   filepath.Join(outside, "missing"),
		"inside":       "real",
	}
	for link, to := range links {
		if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	p := File{Root: root}
	tests := []struct{ ref, want, err string }{
		{ref: "file:to-file", err: "secret reference file:to-file: a symbolic link that leads out of the secrets root"},
		{ref: "file:sub/relative", err: "secret reference file:sub/relative: a symbolic link that leads out of the secrets root"},
		{ref: "file:to-dir/stolen", err: "secret reference file:to-dir/stolen: a symbolic link that leads out of the secrets root"},
		{ref: "file:to-nothing", err: "secret reference file:to-nothing: a symbolic link that leads out of the secrets root"},
		{ref: "file:" + filepath.Join(root, "to-file"), err: "a symbolic link that leads out of the secrets root"},
		{ref: "file:inside", want: "inside"},
		{ref: "file:missing", err: "secret reference file:missing: no such file"},
	}
	for _, tt := range tests {
		got, err := p.Resolve(context.Background(), tt.ref)
		if tt.err == "" {
			if err != nil || got != tt.want {
				t.Errorf("%s: %q, %v; want %q", tt.ref, got, err, tt.want)
			}
			continue
		}
		if err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: %q, %v; want a permanent error %q", tt.ref, got, err, tt.err)
			continue
		}
		if strings.Contains(err.Error(), outside) || strings.Contains(err.Error(), "not-for-you") || got != "" {
			t.Errorf("%s: the answer reveals where the link leads or what it reads: %q, %v", tt.ref, got, err)
		}
	}
}
