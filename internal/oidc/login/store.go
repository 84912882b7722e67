package login

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Store is the directory that keeps the logins of manent login, one file
// per server: $XDG_CONFIG_HOME/manent (~/.config/manent). The directory
// is 0700 and each file 0600, written whole or not at all; a file others
// may read is refused, as ssh refuses such keys: its tokens may have been
// read, and the user should know.
type Store struct {
	Dir string
}

// DefaultDir is $XDG_CONFIG_HOME/manent, else $HOME/.config/manent.
func DefaultDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "manent"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither XDG_CONFIG_HOME nor HOME is set: manent login has nowhere to keep its tokens")
	}
	return filepath.Join(home, ".config", "manent"), nil
}

// Path is the file of server's login.
func (s Store) Path(server string) string {
	sum := sha256.Sum256([]byte(strings.TrimSuffix(server, "/")))
	return filepath.Join(s.Dir, "login-"+hex.EncodeToString(sum[:12])+".json")
}

// InsecureFileError is a token file that others than its user may read or
// write.
type InsecureFileError struct {
	Path string
	Mode fs.FileMode
}

func (e *InsecureFileError) Error() string {
	return fmt.Sprintf("refused: %s is accessible by others (mode %04o, want 0600): its tokens may have been read; "+
		"run manent logout and manent login again", e.Path, e.Mode.Perm())
}

// Load reads server's login: ErrNotSignedIn when there is none.
func (s Store) Load(server string) (*Tokens, error) {
	p := s.Path(server)
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotSignedIn
	}
	if err != nil {
		return nil, fmt.Errorf("read login: %w", err)
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read login: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, &InsecureFileError{Path: p, Mode: st.Mode()}
	}
	var t Tokens
	if err := json.NewDecoder(f).Decode(&t); err != nil {
		return nil, fmt.Errorf("read login %s: %w (run manent login again)", p, err)
	}
	if t.Server != strings.TrimSuffix(server, "/") {
		return nil, ErrNotSignedIn
	}
	return &t, nil
}

// Save writes t as its server's login: to a temporary file of mode 0600
// in the same directory, renamed over the old one, so that a reader never
// sees half a file and a crash leaves the old login whole.
func (s Store) Save(t *Tokens) error {
	if err := s.ensureDir(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return fmt.Errorf("save login: %w", err)
	}
	tmp, err := os.CreateTemp(s.Dir, ".login-*.tmp")
	if err != nil {
		return fmt.Errorf("save login: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // gone after the rename; the leftover of a failure otherwise
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("save login: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("save login: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("save login: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save login: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.Path(t.Server)); err != nil {
		return fmt.Errorf("save login: %w", err)
	}
	return nil
}

// Remove deletes server's login; removed is false when there was none.
func (s Store) Remove(server string) (removed bool, err error) {
	err = os.Remove(s.Path(server))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("remove login: %w", err)
	}
	return true, nil
}

// ensureDir makes the directory 0700, and takes group and world access
// away from one that exists (it holds tokens).
func (s Store) ensureDir() error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", s.Dir, err)
	}
	st, err := os.Stat(s.Dir)
	if err != nil {
		return fmt.Errorf("create %s: %w", s.Dir, err)
	}
	if st.Mode().Perm() != 0o700 {
		if err := os.Chmod(s.Dir, 0o700); err != nil {
			return fmt.Errorf("make %s private: %w", s.Dir, err)
		}
	}
	return nil
}

// Lock takes the lock of server's login, so that two runs of the CLI do
// not both spend a single-use refresh token: the second waits, then reads
// the login the first stored. unlock releases it.
func (s Store) Lock(server string) (unlock func(), err error) {
	if err := s.ensureDir(); err != nil {
		return nil, err
	}
	p := strings.TrimSuffix(s.Path(server), ".json") + ".lock"
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock login: %w", err)
	}
	if err := lockFile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock login: %w", err)
	}
	return func() {
		_ = unlockFile(f)
		_ = f.Close()
	}, nil
}
