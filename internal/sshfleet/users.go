package sshfleet

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ensureUser returns the local account name, created when missing and
// unlocked when locked (without PAM, sshd refuses a locked account even
// for a key). Another process may create it at the same moment: a failed
// useradd is an error only if the account is still missing.
func ensureUser(name string) (User, error) {
	unlockUsers, err := lockUsers()
	if err != nil {
		return User{}, err
	}
	defer unlockUsers()
	u, err := user.Lookup(name)
	var unknown user.UnknownUserError
	if errors.As(err, &unknown) {
		out, addErr := exec.Command("useradd", "--create-home", "--shell", "/bin/sh", "--password", "*",
			"--comment", "manent ssh fleet host", name).CombinedOutput()
		if u, err = user.Lookup(name); err != nil && addErr != nil {
			return User{}, fmt.Errorf("useradd %s: %w: %s", name, addErr, bytes.TrimSpace(out))
		}
	}
	if err != nil {
		return User{}, fmt.Errorf("look up user %s: %w", name, err)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return User{}, fmt.Errorf("user %s: uid %q: %w", name, u.Uid, err)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return User{}, fmt.Errorf("user %s: gid %q: %w", name, u.Gid, err)
	}
	if err := unlock(name); err != nil {
		return User{}, err
	}
	if _, err := os.Stat(u.HomeDir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(u.HomeDir, 0o755); err != nil {
			return User{}, fmt.Errorf("create the home of %s: %w", name, err)
		}
		if err := os.Chown(u.HomeDir, uid, gid); err != nil {
			return User{}, fmt.Errorf("chown the home of %s: %w", name, err)
		}
	}
	return User{Name: name, Home: u.HomeDir, UID: uid, GID: gid}, nil
}

// usersLock serializes the fleets' useradd and usermod between processes
// (the tests of several packages start fleets at once): they refuse to run
// while another holds the lock of /etc/passwd, instead of waiting for it.
var usersLock = filepath.Join(os.TempDir(), "manent-sshfleet-users.lock")

// lockUsers waits for usersLock and returns its release.
func lockUsers() (func(), error) {
	f, err := os.OpenFile(usersLock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the lock of the fleets' users: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close() // the error above is the one to report
		return nil, fmt.Errorf("lock the fleets' users: %w", err)
	}
	// Closing the file releases the lock, as the end of the process would.
	return func() { _ = f.Close() }, nil
}

// unlock gives a locked account ("!" in /etc/shadow, as useradd leaves one
// made without --password) the password "*": no password opens it, but it
// is not locked.
func unlock(name string) error {
	f, err := os.Open("/etc/shadow")
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read /etc/shadow: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only
	locked := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) > 1 && fields[0] == name {
			locked = strings.HasPrefix(fields[1], "!")
			break
		}
	}
	if !locked {
		return nil
	}
	if out, err := exec.Command("usermod", "--password", "*", name).CombinedOutput(); err != nil {
		return fmt.Errorf("usermod %s: %w: %s", name, err, bytes.TrimSpace(out))
	}
	return nil
}
