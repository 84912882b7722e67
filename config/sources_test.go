package config_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

func wantCode(t *testing.T, err error, code deploy.Code) {
	t.Helper()
	var e *deploy.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error %v: want a *deploy.Error with code %s", err, code)
	}
}

func TestCheckSource(t *testing.T) {
	const absolute = "is an absolute path: file: sources are names under artifacts.file_root"
	root := t.TempDir()
	c := &config.Config{Artifacts: config.Artifacts{FileRoot: root,
		Sources: []string{"file:", "http://127.0.0.1:", "https://repo.example.com/apps/"}}}
	tests := []struct {
		source string
		// refused is the problem reported on artifact.source, "" when allowed.
		refused string
	}{
		{"file:hello-1.0.0.tar.gz", ""},
		{"file:sub/../hello.tgz", ""},
		// Not read at submission: the file may be published after it.
		{"file:not-yet-there.tgz", ""},
		{"http://127.0.0.1:8081/hello.tgz", ""},
		{"https://repo.example.com/apps/hello.tgz", ""},
		{"https://repo.example.com/other/hello.tgz", "is not allowed by artifacts.sources"},
		{"http://127.0.0.1.evil.net/hello.tgz", "is not allowed by artifacts.sources"},
		{"http://127.0.0.1:80@evil.net/hello.tgz", "is not allowed by artifacts.sources"},
		{"http://localhost:8081/hello.tgz", "is not allowed by artifacts.sources"},
		{"HTTP://127.0.0.1:8081/hello.tgz", "is not allowed by artifacts.sources"},
		{"https://evil.net/?https://repo.example.com/apps/", "is not allowed by artifacts.sources"},
		// Check 3 of the spec refuses at submission what the artifacts
		// step would refuse: nothing outside artifacts.file_root.
		{"file:../../../../etc/passwd", "is outside artifacts.file_root"},
		{"file:../../etc/passwd", "is outside artifacts.file_root"},
		{"file:sub/../../passwd", "is outside artifacts.file_root"},
		{"file:%2e%2e/%2e%2e/etc/passwd", "is outside artifacts.file_root"},
		// An absolute path has one answer, inside the root or not: that
		// one validates and the other not would tell where the root is.
		{"file:///etc/passwd", absolute},
		{"file:/etc/passwd", absolute},
		{"file://" + root + "/hello.tgz", absolute},
		{"file://localhost" + root + "/hello.tgz", absolute},
		{"file:" + root + "/hello.tgz", absolute},
		{"file:%2F" + strings.TrimPrefix(root, "/") + "%2Fhello.tgz", absolute},
		{"file://" + root + "/../passwd", absolute},
		{"file:.", "is outside artifacts.file_root"},
		{"file://otherhost/hello.tgz", "is a file: source naming another host"},
		{"file:", "is not a valid file: source"},
		{"file:a%zz.tgz", "is not a valid file: source"},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			err := c.CheckSource(tt.source)
			if tt.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			wantSourceField(t, err, tt.refused)
		})
	}
	t.Run("no file_root", func(t *testing.T) {
		c := &config.Config{Artifacts: config.Artifacts{Sources: []string{"file:"}}}
		wantSourceField(t, c.CheckSource("file:a.tgz"), "is a file: source, and artifacts.file_root is not set")
	})
	t.Run("no sources", func(t *testing.T) {
		wantSourceField(t, (&config.Config{}).CheckSource("file:a.tgz"), "is not allowed by artifacts.sources")
	})
}

// wantSourceField fails the test unless err is the 422 of a refused
// artifact source, on its descriptor field.
func wantSourceField(t *testing.T, err error, problem string) {
	t.Helper()
	wantCode(t, err, deploy.EUNPROCESSABLE)
	var e *deploy.Error
	errors.As(err, &e)
	want := []deploy.FieldError{{Path: "artifact.source", Message: problem}}
	if !slices.Equal(e.Fields, want) {
		t.Errorf("fields %v, want %v", e.Fields, want)
	}
	if got := err.Error(); got != "artifact source refused: artifact.source: "+problem {
		t.Errorf("message %q", got)
	}
}

func TestFileSources(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "artifacts")
	outside := filepath.Join(base, "secret.txt")
	mustWrite(t, filepath.Join(root, "hello.tgz"), "hello")
	mustWrite(t, filepath.Join(root, "sub", "a b.tgz"), "spaced")
	mustWrite(t, outside, "secret")
	if err := os.Symlink(outside, filepath.Join(root, "escape.tgz")); err != nil {
		t.Fatal(err)
	}
	c := &config.Config{Artifacts: config.Artifacts{FileRoot: root}}
	tests := []struct {
		source string
		// want is the resolved path relative to root, "" when refused.
		want string
	}{
		{"file:hello.tgz", "hello.tgz"},
		{"file:sub/a%20b.tgz", "sub/a b.tgz"},
		{"file://" + root + "/hello.tgz", ""},
		{"file://localhost" + root + "/hello.tgz", ""},
		{"file:" + root + "/sub/../hello.tgz", ""},
		{"file:../secret.txt", ""},
		{"file:sub/../../secret.txt", ""},
		{"file://" + outside, ""},
		{"file://otherhost/hello.tgz", ""},
		{"file:escape.tgz", ""},
		{"file:", ""},
		{"file:.", ""},
		{"https://repo.example.com/hello.tgz", ""},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			got, err := c.ResolveFileSource(tt.source)
			f, oerr := c.OpenFileSource(tt.source)
			if f != nil {
				t.Cleanup(func() { _ = f.Close() })
			}
			if tt.want == "" {
				wantCode(t, err, deploy.EUNPROCESSABLE)
				if oerr == nil {
					t.Fatalf("OpenFileSource opened %s", f.Name())
				}
				return
			}
			if err != nil || got != filepath.Join(root, tt.want) {
				t.Fatalf("ResolveFileSource = %q, %v; want %q", got, err, filepath.Join(root, tt.want))
			}
			if oerr != nil {
				t.Fatalf("OpenFileSource: %v", oerr)
			}
			data, _ := io.ReadAll(f)
			want, _ := os.ReadFile(got)
			if string(data) != string(want) {
				t.Errorf("opened %q, want %q", data, want)
			}
		})
	}
	t.Run("missing file resolves, open says not found", func(t *testing.T) {
		if _, err := c.ResolveFileSource("file:none.tgz"); err != nil {
			t.Fatal(err)
		}
		_, err := c.OpenFileSource("file:none.tgz")
		wantCode(t, err, deploy.EUNPROCESSABLE)
	})
	t.Run("no file_root", func(t *testing.T) {
		_, err := (&config.Config{}).ResolveFileSource("file:hello.tgz")
		wantCode(t, err, deploy.EUNPROCESSABLE)
	})
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
