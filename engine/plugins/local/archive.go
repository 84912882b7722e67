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

// Limits of an unpacked artifact: a corrupt or hostile archive fails the
// step instead of filling the disk.
const (
	maxFiles     = 100_000
	maxTotalSize = 4 << 30
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

// checkArchive reads the whole archive without writing anything.
func checkArchive(path string) error {
	tr, c, err := openArchive(path)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }() // read-only: a failed close loses nothing
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return deploy.Permanentf("artifact is not a valid tar archive: %v", err)
		}
		if _, err := safeName(h.Name); err != nil {
			return err
		}
	}
}

// CheckArchive is checkArchive for the qa step.
func CheckArchive(path string) error { return checkArchive(path) }

// unpack extracts regular files and directories into dir. Links, devices
// and paths escaping dir are refused: an artifact is data, not a way to
// write outside its release.
func unpack(path, dir string) (int, error) {
	tr, c, err := openArchive(path)
	if err != nil {
		return 0, err
	}
	defer func() { _ = c.Close() }() // read-only: a failed close loses nothing
	var files int
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return files, deploy.Permanentf("artifact is not a valid tar archive: %v", err)
		}
		name, err := safeName(h.Name)
		if err != nil {
			return files, err
		}
		if name == "" {
			continue
		}
		dst := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return files, fmt.Errorf("create %s: %w", name, err)
			}
		case tar.TypeReg:
			files++
			total += h.Size
			if files > maxFiles || total > maxTotalSize {
				return files, deploy.Permanentf("artifact exceeds %d files or %d bytes", maxFiles, int64(maxTotalSize))
			}
			if err := writeFile(dst, tr, h.FileInfo().Mode().Perm()); err != nil {
				return files, fmt.Errorf("write %s: %w", name, err)
			}
		default:
			return files, deploy.Permanentf("artifact entry %q: only files and directories are allowed", h.Name)
		}
	}
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
