package sshfleet

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// What the fleet runs. sshd must be started by its absolute path: it
// executes itself again for every connection.
const (
	sshdPath   = "/usr/sbin/sshd"
	sftpServer = "/usr/lib/openssh/sftp-server"
	// privsepDir is where sshd's unprivileged child chroots; Debian's
	// service creates it at boot, which a machine without the service
	// running never did.
	privsepDir = "/run/sshd"
)

// AllowSkipEnv set to 1 lets a test that needs a fleet skip where none can
// run (not root, no sshd). Without it such a test fails: CI must never skip
// the OpenSSH tests without saying so.
const AllowSkipEnv = "MANENT_E2E_ALLOW_SKIP_SSHD"

// Files of the fleet's directory.
const (
	configFile     = "sshd_config"
	hostKeyFile    = "ssh_host_ed25519_key"
	deployKeyFile  = "deploy-key"
	knownHostsFile = "known_hosts"
	forcedCommand  = "forced-command"
	authorizedDir  = "authorized_keys"
	commandsDir    = "commands"
	timelineSuffix = ".timeline"
)

// Config describes a fleet.
type Config struct {
	// Dir holds the fleet's files: sshd's config, host key and log, the
	// authorized keys, the forced command and its logs, the deploy key and
	// known_hosts. It is created 0755 when missing: the users run the
	// forced command from it, so every directory above it must be
	// traversable by them (a directory under /tmp or /var/tmp is).
	Dir string
	// Users are the login names of the hosts; missing ones are created
	// with useradd (home under /home, shell /bin/sh, no password).
	Users []string
	// Port is sshd's port on 127.0.0.1; 0 picks a free one.
	Port int
	// Output, when set, receives sshd's log lines as they come.
	Output io.Writer
	// Timeline makes the forced command also record when each session's
	// command started and ended, by the host's clock (see Timeline): it
	// then runs the command as its child instead of in its place.
	Timeline bool
}

// A Fleet is a running sshd and its users.
type Fleet struct {
	Dir   string
	Port  int
	Users []User
	sshd  *sshd
	out   io.Writer
	// timeline: see Config.Timeline.
	timeline bool
}

// A User is a host of the fleet: a local account with its home directory.
type User struct {
	Name     string
	Home     string
	UID, GID int
}

// Check says why no fleet can run on this machine, or nil.
func Check() error {
	var problems []string
	if os.Geteuid() != 0 {
		problems = append(problems, "it needs root (sshd logs in several users only when it runs as root, and the users are created with useradd)")
	}
	if _, err := os.Stat(sshdPath); err != nil {
		problems = append(problems, "OpenSSH's server is not installed ("+sshdPath+"; apt-get install openssh-server, which make test does when root)")
	}
	for _, prog := range []string{"ssh-keygen", "useradd", "usermod"} {
		if _, err := exec.LookPath(prog); err != nil {
			problems = append(problems, prog+" is not installed")
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return errors.New("no OpenSSH fleet can run here: " + strings.Join(problems, "; "))
}

// Require fails t when no fleet can run here, or skips it when AllowSkipEnv
// is 1.
func Require(t testing.TB) {
	t.Helper()
	err := Check()
	if err == nil {
		return
	}
	if os.Getenv(AllowSkipEnv) == "1" {
		t.Skipf("skipped (%s=1): %v", AllowSkipEnv, err)
	}
	t.Fatalf("%v. Run the tests as root after installing openssh-server, or set %s=1 to skip the tests that need it", err, AllowSkipEnv)
}

// Start prepares the users, the keys and the files of the fleet and starts
// its sshd. Stop it with Stop; the users stay.
func Start(cfg Config) (*Fleet, error) {
	if err := Check(); err != nil {
		return nil, err
	}
	if len(cfg.Users) == 0 {
		return nil, errors.New("a fleet needs at least one user")
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("fleet directory: %w", err)
	}
	for _, d := range []string{dir, filepath.Join(dir, authorizedDir), filepath.Join(dir, commandsDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", d, err)
		}
		// MkdirAll leaves an existing directory's mode, and a temporary
		// directory is 0700: the users could not reach the forced command.
		if err := os.Chmod(d, 0o755); err != nil {
			return nil, fmt.Errorf("chmod %s: %w", d, err)
		}
	}
	f := &Fleet{Dir: dir, Port: cfg.Port, out: cfg.Output, timeline: cfg.Timeline}
	for _, name := range cfg.Users {
		u, err := ensureUser(name)
		if err != nil {
			return nil, err
		}
		f.Users = append(f.Users, u)
	}
	if f.Port == 0 {
		if f.Port, err = freePort(); err != nil {
			return nil, err
		}
	}
	if err := f.prepare(); err != nil {
		return nil, err
	}
	if err := f.start(); err != nil {
		return nil, err
	}
	return f, nil
}

// prepare writes every file of the fleet's directory.
func (f *Fleet) prepare() error {
	if err := keygen(f.path(hostKeyFile), "manent-fleet-host"); err != nil {
		return err
	}
	if err := keygen(f.path(deployKeyFile), "manent-deploy"); err != nil {
		return err
	}
	deployPub, err := publicKey(f.path(deployKeyFile + ".pub"))
	if err != nil {
		return err
	}
	for _, u := range f.Users {
		// restrict: no pty, no forwarding, no ~/.ssh/rc; a deploy needs
		// commands and sftp only.
		if err := os.WriteFile(filepath.Join(f.Dir, authorizedDir, u.Name), []byte("restrict "+deployPub+"\n"), 0o644); err != nil {
			return fmt.Errorf("write authorized keys of %s: %w", u.Name, err)
		}
		// The forced command appends to it as the user.
		log := filepath.Join(f.Dir, commandsDir, u.Name+".log")
		if err := os.WriteFile(log, nil, 0o644); err != nil {
			return fmt.Errorf("create command log of %s: %w", u.Name, err)
		}
		if err := os.Chown(log, u.UID, u.GID); err != nil {
			return fmt.Errorf("chown command log of %s: %w", u.Name, err)
		}
		if f.timeline {
			tl := filepath.Join(f.Dir, commandsDir, u.Name+timelineSuffix)
			if err := os.WriteFile(tl, nil, 0o644); err != nil {
				return fmt.Errorf("create the timeline of %s: %w", u.Name, err)
			}
			if err := os.Chown(tl, u.UID, u.GID); err != nil {
				return fmt.Errorf("chown the timeline of %s: %w", u.Name, err)
			}
		}
	}
	if err := os.WriteFile(f.path(forcedCommand), []byte(forcedCommandScript(f.Dir, f.timeline)), 0o755); err != nil {
		return fmt.Errorf("write forced command: %w", err)
	}
	line, err := f.KnownHostsLine(f.Port)
	if err != nil {
		return err
	}
	if err := os.WriteFile(f.path(knownHostsFile), []byte(line+"\n"), 0o644); err != nil {
		return fmt.Errorf("write known_hosts: %w", err)
	}
	if err := os.WriteFile(f.path(configFile), []byte(f.sshdConfig()), 0o644); err != nil {
		return fmt.Errorf("write sshd config: %w", err)
	}
	if err := os.MkdirAll(privsepDir, 0o755); err != nil {
		return fmt.Errorf("create sshd's privilege separation directory: %w", err)
	}
	return nil
}

func (f *Fleet) path(name string) string { return filepath.Join(f.Dir, name) }

// Addr is sshd's address.
func (f *Fleet) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(f.Port)) }

// DeployKey is the file of the deploy key's private half (OpenSSH format,
// no passphrase), which every user of the fleet accepts.
func (f *Fleet) DeployKey() string { return f.path(deployKeyFile) }

// KnownHosts is a known_hosts file with the host key the fleet started
// with, for its address. ChangeHostKey leaves it as it is.
func (f *Fleet) KnownHosts() string { return f.path(knownHostsFile) }

// HostKey is the current host public key: "ssh-ed25519 AAAA...".
func (f *Fleet) HostKey() (string, error) { return publicKey(f.path(hostKeyFile + ".pub")) }

// Fingerprint is the SHA-256 fingerprint of the current host key as
// OpenSSH shows it: "SHA256:<unpadded base64>".
func (f *Fleet) Fingerprint() (string, error) {
	pub, err := f.HostKey()
	if err != nil {
		return "", err
	}
	return fingerprint(pub)
}

// KnownHostsLine is the known_hosts line of the current host key for port
// on 127.0.0.1 (a proxy's port, say, in front of the fleet).
func (f *Fleet) KnownHostsLine(port int) (string, error) {
	pub, err := f.HostKey()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("[127.0.0.1]:%d %s", port, pub), nil
}

// Commands are the commands the users' clients ran, as the forced command
// recorded them, one per session, in order: "(login shell)" for a shell,
// the subsystem's program for sftp.
func (f *Fleet) Commands(user string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(f.Dir, commandsDir, user+".log"))
	if err != nil {
		return nil, fmt.Errorf("read the command log of %s: %w", user, err)
	}
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, "\n"), nil
}

// Log is what sshd logged so far (LogLevel VERBOSE: connections,
// authentications, sessions).
func (f *Fleet) Log() string { return f.sshd.output() }

// ChangeHostKey replaces the host, as a reinstalled machine would: sshd
// and every connection to it end, and a new sshd starts on the same port
// with a new host key. known_hosts keeps the old one.
func (f *Fleet) ChangeHostKey() error {
	if err := f.sshd.stop(); err != nil {
		return err
	}
	if err := keygen(f.path(hostKeyFile), "manent-fleet-host"); err != nil {
		return err
	}
	return f.start()
}

// Stop ends sshd and every connection to it.
func (f *Fleet) Stop() error {
	if f.sshd == nil {
		return nil
	}
	return f.sshd.stop()
}

func (f *Fleet) start() error {
	s, err := startSSHD(f.path(configFile), f.out)
	if err != nil {
		return err
	}
	f.sshd = s
	return nil
}

func (f *Fleet) sshdConfig() string {
	var users []string
	for _, u := range f.Users {
		users = append(users, u.Name)
	}
	subsystem := "# no sftp-server here: clients must copy files over a command's stdin\n"
	if _, err := os.Stat(sftpServer); err == nil {
		subsystem = "Subsystem sftp " + sftpServer + "\n"
	}
	return fmt.Sprintf(`# The sshd of a manent ssh fleet (internal/sshfleet): on loopback only,
# deploy key only, for the fleet's users only.
ListenAddress 127.0.0.1:%d
HostKey %s
PidFile none
AllowUsers %s
PermitRootLogin no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
AuthorizedKeysFile %s/%%u
# The authorized keys are root's, in the fleet's directory, which may be
# under /tmp: StrictModes would refuse a world-writable parent.
StrictModes no
# Every session goes through it: it records the command, then runs it.
ForceCommand %s
%sAllowTcpForwarding no
AllowAgentForwarding no
X11Forwarding no
PermitTunnel no
PrintMotd no
PrintLastLog no
LogLevel VERBOSE
`, f.Port, f.path(hostKeyFile), strings.Join(users, " "), filepath.Join(f.Dir, authorizedDir), f.path(forcedCommand), subsystem)
}

// forcedCommandScript records the command of each session on one line of
// the user's log (newlines and tabs as spaces, cut at 500 bytes so that one
// write appends it whole), then runs it with the login shell, as sshd
// would have without a forced command. With timeline, it also appends
// "start <pid> <unix ns> <command>" to the user's timeline before the
// command and "end <pid> <unix ns> <exit status>" once it exited, and so
// stays the command's parent to see it end.
func forcedCommandScript(dir string, timeline bool) string {
	logs := shellQuote(filepath.Join(dir, commandsDir))
	head := `#!/bin/sh
# The ForceCommand of a manent ssh fleet (internal/sshfleet).
cmd=$(printf '%s' "${SSH_ORIGINAL_COMMAND:-}" | tr '\n\r\t' '   ' | cut -c1-500)
printf '%s\n' "${cmd:-(login shell)}" >> ` + logs + `/"$(id -un)".log
`
	if !timeline {
		return head + `if [ -z "${SSH_ORIGINAL_COMMAND:-}" ]; then
	exec "$SHELL" -l
fi
exec "$SHELL" -c "$SSH_ORIGINAL_COMMAND"
`
	}
	return head + `timeline=` + logs + `/"$(id -un)"` + timelineSuffix + `
printf 'start %s %s %s\n' "$$" "$(date +%s%N)" "${cmd:-(login shell)}" >> "$timeline"
if [ -z "${SSH_ORIGINAL_COMMAND:-}" ]; then
	"$SHELL" -l
else
	"$SHELL" -c "$SSH_ORIGINAL_COMMAND"
fi
status=$?
printf 'end %s %s %s\n' "$$" "$(date +%s%N)" "$status" >> "$timeline"
exit "$status"
`
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	// sshd is about to listen on it: it must really be free.
	if err := l.Close(); err != nil {
		return 0, fmt.Errorf("free port %d: %w", port, err)
	}
	return port, nil
}
