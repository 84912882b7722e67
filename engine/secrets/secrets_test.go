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
