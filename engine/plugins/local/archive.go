package local

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"manent.dev/manent/deploy"
)

// openArchive returns a tar reader over a .tar or gzip-compressed tar file,
// sniffing the gzip magic rather than trusting the file name.
func openArchive(path string) (*tar.Reader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open artifact: %w", err)
	}
	br := bufio.NewReader(f)
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			_ = f.Close() // read-only, and the gzip error is the one to report
			return nil, nil, deploy.Permanentf("artifact is not a valid gzip file: %v", err)
		}
		return tar.NewReader(gz), f, nil
	}
	return tar.NewReader(br), f, nil
}

// CheckArchive reads the whole archive without writing anything and
// refuses, permanently, what unpacking it would refuse: an entry that is
// not a file or a directory, a path out of the release, more entries or
// bytes than limits allow. The qa step and Deploy run it before anything
// is written.
func CheckArchive(path string, limits deploy.ArchiveLimits) error {
	return walkArchive(path, limits, func(string, *tar.Header, io.Reader) error { return nil })
}

// unpack extracts the archive into dir. Links, devices and paths escaping
// dir are refused: an artifact is data, not a way to write outside its
// release. It returns the number of files written.
func unpack(path, dir string, limits deploy.ArchiveLimits) (int, error) {
	var files int
	err := walkArchive(path, limits, func(name string, h *tar.Header, r io.Reader) error {
		dst := filepath.Join(dir, name)
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return fmt.Errorf("create %s: %w", name, err)
			}
			return nil
		}
		files++
		if err := writeFile(dst, r, h.FileInfo().Mode().Perm()); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
		return nil
	})
	return files, err
}

// walkArchive checks every entry of the archive and hands each file and
// directory to visit, with the reader of its content, in archive order.
// An entry is refused before visit sees it, so nothing of a refused entry
// is written.
func walkArchive(path string, limits deploy.ArchiveLimits, visit func(name string, h *tar.Header, r io.Reader) error) error {
	tr, c, err := openArchive(path)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }() // read-only: a failed close loses nothing
	t := newTally(limits.OrDefault())
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return deploy.Permanentf("artifact is not a valid tar archive: %v", err)
		}
		name, err := safeName(h.Name)
		if err != nil {
			return err
		}
		if err := t.add(name, h); err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeXGlobalHeader:
			// Metadata for the entries after it (git archive writes one),
			// not a file: nothing to unpack.
			continue
		case tar.TypeDir, tar.TypeReg:
		default:
			return deploy.Permanentf("artifact entry %q: only files and directories are allowed", h.Name)
		}
		if name == "" {
			continue
		}
		if err := visit(name, h, tr); err != nil {
			return err
		}
	}
}

// tally counts what an archive unpacks to. Every header is an entry, and
// so is every directory a path implies without an entry of its own
// (a/b/c/file creates a, a/b and a/b/c): a single entry with a deep path
// would otherwise create thousands of inodes uncounted.
type tally struct {
	limits  deploy.ArchiveLimits
	entries int
	bytes   int64
	// dirs are the directories already counted, named or implied.
	dirs map[string]bool
}

func newTally(limits deploy.ArchiveLimits) *tally {
	return &tally{limits: limits, dirs: map[string]bool{}}
}

func (t *tally) add(name string, h *tar.Header) error {
	t.entries++
	if name != "" {
		if h.Typeflag == tar.TypeDir {
			t.dirs[name] = true
		}
		for dir := filepath.Dir(name); dir != "." && !t.dirs[dir]; dir = filepath.Dir(dir) {
			t.dirs[dir] = true
			t.entries++
		}
	}
	if t.entries > t.limits.MaxEntries {
		return deploy.Permanentf("artifact unpacks to more than %d entries (files, directories and links, with the directories their paths imply): the limit is artifacts.max_entries",
			t.limits.MaxEntries)
	}
	if h.Typeflag == tar.TypeReg {
		t.bytes += h.Size
		if t.bytes > t.limits.MaxBytes {
			return deploy.Permanentf("artifact unpacks to more than %d bytes: the limit is artifacts.max_unpacked_size", t.limits.MaxBytes)
		}
	}
	return nil
}

func safeName(name string) (string, error) {
	clean := filepath.Clean(strings.TrimPrefix(name, "./"))
	if clean == "." {
		return "", nil
	}
	if filepath.IsAbs(name) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", deploy.Permanentf("artifact entry %q escapes the release directory", name)
	}
	if clean == marker {
		return "", deploy.Permanentf("artifact entry %q uses a name reserved by manent", name)
	}
	return clean, nil
}

func writeFile(dst string, r io.Reader, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, perm|0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		_ = f.Close() // the copy error is the one to report
		return err
	}
	return f.Close()
}
