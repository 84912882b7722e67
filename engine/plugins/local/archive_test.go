package local

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
)

// entry is one entry of an archive a test writes, in order.
type entry struct {
	h    *tar.Header
	body string
}

func tarFile(name, body string) entry {
	return entry{h: &tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}, body: body}
}

func tarDir(name string) entry {
	return entry{h: &tar.Header{Name: name, Mode: 0o755, Typeflag: tar.TypeDir}}
}

// archiveOf writes a gzip-compressed tar of entries; an entry whose body
// is shorter than its header's size ends the archive there, as a header
// that only claims a size does.
func archiveOf(t *testing.T, entries ...entry) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.tar.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	gz, err := gzip.NewWriterLevel(f, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(gz)
	truncated := false
	for _, e := range entries {
		if err := tw.WriteHeader(e.h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
		if int64(len(e.body)) < e.h.Size {
			truncated = true
			break
		}
	}
	if !truncated {
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// manyDirectories is the hostile archive of the issue: 150,000 empty
// directories, some 700 KB compressed, 590 MB of directory blocks unpacked.
func manyDirectories(t *testing.T) string {
	t.Helper()
	entries := make([]entry, 150_000)
	for i := range entries {
		entries[i] = tarDir(fmt.Sprintf("d%06d/", i))
	}
	return archiveOf(t, entries...)
}

func TestArchiveLimits(t *testing.T) {
	deep := strings.Repeat("d/", 200) + "file"
	tests := []struct {
		name    string
		archive func(t *testing.T) string
		limits  deploy.ArchiveLimits
		// refused names the limit in the error; "" when the archive unpacks.
		refused string
	}{{
		name:    "150,000 directories, default limits",
		archive: manyDirectories,
		refused: "more than 100000 entries",
	}, {
		name: "a file over the default byte cap, refused at its header",
		archive: func(t *testing.T) string {
			return archiveOf(t, entry{h: &tar.Header{Name: "zeros", Mode: 0o644, Size: 4<<30 + 1, Typeflag: tar.TypeReg}})
		},
		refused: "more than 4294967296 bytes",
	}, {
		name: "files that add up to more than the byte cap",
		archive: func(t *testing.T) string {
			return archiveOf(t, tarFile("a", strings.Repeat("x", 600)), tarFile("b", strings.Repeat("x", 600)))
		},
		limits:  deploy.ArchiveLimits{MaxBytes: 1000},
		refused: "more than 1000 bytes",
	}, {
		name: "files of exactly the byte cap",
		archive: func(t *testing.T) string {
			return archiveOf(t, tarFile("a", strings.Repeat("x", 500)), tarFile("b", strings.Repeat("x", 500)))
		},
		limits: deploy.ArchiveLimits{MaxBytes: 1000},
	}, {
		name:    "the directories a deep path implies count",
		archive: func(t *testing.T) string { return archiveOf(t, tarFile(deep, "x")) },
		limits:  deploy.ArchiveLimits{MaxEntries: 200},
		refused: "more than 200 entries",
	}, {
		name:    "a deep path within the limit",
		archive: func(t *testing.T) string { return archiveOf(t, tarFile(deep, "x")) },
		limits:  deploy.ArchiveLimits{MaxEntries: 201},
	}, {
		name: "an implied directory counts once",
		archive: func(t *testing.T) string {
			return archiveOf(t, tarFile("www/index.html", "x"), tarFile("www/app.js", "y"))
		},
		limits: deploy.ArchiveLimits{MaxEntries: 3},
	}, {
		name: "a named directory is not counted again as implied",
		archive: func(t *testing.T) string {
			return archiveOf(t, tarDir("www/"), tarFile("www/index.html", "x"), tarFile("VERSION", "1"))
		},
		limits: deploy.ArchiveLimits{MaxEntries: 3},
	}, {
		name: "a link counts",
		archive: func(t *testing.T) string {
			return archiveOf(t, tarFile("index.html", "x"), entry{h: &tar.Header{Name: "link", Linkname: "index.html", Typeflag: tar.TypeSymlink}})
		},
		limits:  deploy.ArchiveLimits{MaxEntries: 1},
		refused: "more than 1 entries",
	}, {
		name: "a link within the limits is still refused",
		archive: func(t *testing.T) string {
			return archiveOf(t, tarFile("index.html", "x"), entry{h: &tar.Header{Name: "link", Linkname: "index.html", Typeflag: tar.TypeSymlink}})
		},
		refused: "only files and directories are allowed",
	}, {
		name: "a global header is metadata, not a file",
		archive: func(t *testing.T) string {
			return archiveOf(t, entry{h: &tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header",
				PAXRecords: map[string]string{"comment": "written by git archive"}}}, tarFile("index.html", "x"))
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			art := tt.archive(t)
			target := t.TempDir()
			req := request(art, target, "1.0.0", "aaa")
			req.Limits = tt.limits
			checkErr := CheckArchive(art, tt.limits)
			_, err := New("/").Deploy(context.Background(), req)
			if tt.refused == "" {
				if checkErr != nil || err != nil {
					t.Fatalf("check: %v, deploy: %v; want both to pass", checkErr, err)
				}
				if _, err := os.Stat(filepath.Join(target, releasesDir, "1.0.0", marker)); err != nil {
					t.Fatalf("release not unpacked: %v", err)
				}
				return
			}
			for what, err := range map[string]error{"check": checkErr, "deploy": err} {
				if !deploy.IsPermanent(err) || !strings.Contains(err.Error(), tt.refused) {
					t.Errorf("%s: %v, want a permanent error with %q", what, err, tt.refused)
				}
			}
			// Refused before any target is touched: not a directory, not a
			// journal line.
			if left, err := os.ReadDir(target); err != nil || len(left) != 0 {
				t.Errorf("the target holds %v (%v) after the refusal, want nothing", names(left), err)
			}
		})
	}
}

func names(entries []os.DirEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestLimitMessagesNameTheirKeys: the operator reads which key to raise.
func TestLimitMessagesNameTheirKeys(t *testing.T) {
	tests := map[string]struct {
		art    func(t *testing.T) string
		limits deploy.ArchiveLimits
		key    string
	}{
		"entries": {func(t *testing.T) string { return archiveOf(t, tarFile("a", "x"), tarFile("b", "y")) }, deploy.ArchiveLimits{MaxEntries: 1}, "artifacts.max_entries"},
		"bytes":   {func(t *testing.T) string { return archiveOf(t, tarFile("a", "xy")) }, deploy.ArchiveLimits{MaxBytes: 1}, "artifacts.max_unpacked_size"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if err := CheckArchive(tt.art(t), tt.limits); err == nil || !strings.Contains(err.Error(), tt.key) {
				t.Fatalf("got %v, want an error naming %s", err, tt.key)
			}
		})
	}
}

func TestArchiveLimitsDefaults(t *testing.T) {
	got := deploy.ArchiveLimits{}.OrDefault()
	if got.MaxEntries != deploy.DefaultMaxEntries || got.MaxBytes != deploy.DefaultMaxUnpackedBytes {
		t.Fatalf("zero limits = %+v, want the defaults", got)
	}
	set := deploy.ArchiveLimits{MaxEntries: 7, MaxBytes: 9}
	if set.OrDefault() != set {
		t.Fatalf("limits set = %+v, want them kept", set.OrDefault())
	}
}

// TestUnpackCountsWhatItWrites: the tally the check keeps is the one the
// unpack keeps, so an archive within the limits is unpacked whole.
func TestUnpackCountsWhatItWrites(t *testing.T) {
	art := archiveOf(t, tarDir("www/"), tarFile("www/index.html", "<h1>1</h1>"), tarFile("conf/app.ini", "a=1"), tarFile("VERSION", "1.0.0"))
	out := t.TempDir()
	files, err := unpack(art, out, deploy.ArchiveLimits{MaxEntries: 5, MaxBytes: 18})
	if err != nil || files != 3 {
		t.Fatalf("unpack = %d files, %v; want 3 files", files, err)
	}
	for name, want := range map[string]string{"www/index.html": "<h1>1</h1>", "conf/app.ini": "a=1", "VERSION": "1.0.0"} {
		if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := unpack(art, t.TempDir(), deploy.ArchiveLimits{MaxEntries: 4}); !errors.As(err, new(*deploy.PermanentError)) {
		t.Fatalf("unpack over the entries limit: %v, want a permanent error", err)
	}
}
