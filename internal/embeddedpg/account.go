package embeddedpg

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// pgUser is who runs PostgreSQL when we are root: PostgreSQL refuses to run
// as root, and nobody exists on every Debian-like system.
const pgUser = "nobody"

// account is the user PostgreSQL runs as; nil means the current user.
type account struct {
	name     string
	uid, gid uint32
}

// pgAccount returns nobody's account when running as root, nil otherwise.
func pgAccount() (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(pgUser)
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL needs the user %s: %w", pgUser, err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("uid of %s: %w", pgUser, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("gid of %s: %w", pgUser, err)
	}
	return &account{name: pgUser, uid: uint32(uid), gid: uint32(gid)}, nil
}

func (a *account) String() string {
	if a == nil {
		return "the current user"
	}
	return a.name
}

// sysProcAttr makes a child run as the account, with no supplementary groups.
func (a *account) sysProcAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{}
	if a != nil {
		attr.Credential = &syscall.Credential{Uid: a.uid, Gid: a.gid, Groups: []uint32{}}
	}
	return attr
}

// chown gives path to the account (a no-op for the current user).
func (a *account) chown(path string) error {
	if a == nil {
		return nil
	}
	if err := os.Lchown(path, int(a.uid), int(a.gid)); err != nil {
		return fmt.Errorf("give %s to %s: %w", path, a.name, err)
	}
	return nil
}

// baseDir is where clusters and binaries made for the PostgreSQL user live
// when we are root: a directory every user can traverse, kept across reboots.
func baseDir() string {
	if st, err := os.Stat("/var/tmp"); err == nil && st.IsDir() {
		return "/var/tmp"
	}
	return os.TempDir()
}

// clusterDir is where the cluster of dataDir lives: dataDir itself, or, as
// root, a directory named after dataDir's absolute path in baseDir, since
// dataDir's parents may not be traversable by the PostgreSQL user.
func clusterDir(dataDir string, acct *account) (string, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return "", fmt.Errorf("data directory: %w", err)
	}
	if acct == nil {
		return abs, nil
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(baseDir(), "manent-pg-"+hex.EncodeToString(sum[:6])), nil
}

// childEnv is the whole environment of PostgreSQL's programs: nothing of
// ours (secrets, PG* variables) leaks into them, and the locale is fixed.
func childEnv() []string {
	return []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "LANG=C"}
}
