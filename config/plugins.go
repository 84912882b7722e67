package config

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/yamltree"
)

// Plugins configures the plugins that need more than the environment
// configurations say: plugins.ssh.
type Plugins struct {
	SSH SSHPlugin `yaml:"ssh"`
}

// SSHPlugin is plugins.ssh: how the ssh plugin reaches its targets.
type SSHPlugin struct {
	// KnownHosts is the known_hosts file every host key is checked
	// against: relative to manent.yml's directory, ~/ for the server's
	// home; ~/.ssh/known_hosts when empty.
	KnownHosts string `yaml:"known_hosts"`
	// InsecureIgnoreHostKey accepts any host key; only manent-server dev
	// starts with it.
	InsecureIgnoreHostKey bool `yaml:"insecure_ignore_host_key"`
	// MaxSessionsPerHost bounds the SSH sessions open at once on one host
	// (host and port) by this process. The sessions of a login share one
	// connection, and sshd refuses more than its MaxSessions (10 by
	// default) on a connection: the bound is at most that.
	MaxSessionsPerHost int `yaml:"max_sessions_per_host"`
	// Parallel is how many targets a step works on at once.
	Parallel int `yaml:"parallel"`
	// ConnectTimeout bounds a connection and its handshake.
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
	// CommandTimeout bounds one command on a target (the step's timeout
	// bounds them all).
	CommandTimeout time.Duration `yaml:"command_timeout"`
}

// Defaults and bounds of plugins.ssh.
const (
	DefaultSSHKnownHosts        = "~/.ssh/known_hosts"
	DefaultSSHMaxSessions       = 4
	DefaultSSHParallel          = 10
	DefaultSSHConnectTimeout    = 10 * time.Second
	DefaultSSHCommandTimeout    = 10 * time.Minute
	maxSSHSessions, maxParallel = 10, 500
)

func defaultSSHPlugin() SSHPlugin {
	return SSHPlugin{KnownHosts: DefaultSSHKnownHosts, MaxSessionsPerHost: DefaultSSHMaxSessions,
		Parallel: DefaultSSHParallel, ConnectTimeout: DefaultSSHConnectTimeout, CommandTimeout: DefaultSSHCommandTimeout}
}

func (c *Config) validatePlugins(errs *yamltree.Errors) {
	s := c.Plugins.SSH
	if s.KnownHosts == "" {
		errs.Add("plugins.ssh.known_hosts", "must name a known_hosts file (default %s)", DefaultSSHKnownHosts)
	}
	if s.MaxSessionsPerHost < 1 || s.MaxSessionsPerHost > maxSSHSessions {
		errs.Add("plugins.ssh.max_sessions_per_host",
			"must be between 1 and %d: the sessions of a login share one connection, and sshd allows %d on a connection by default (MaxSessions)",
			maxSSHSessions, maxSSHSessions)
	}
	if s.Parallel < 1 || s.Parallel > maxParallel {
		errs.Add("plugins.ssh.parallel", "must be between 1 and %d", maxParallel)
	}
	if s.ConnectTimeout < 100*time.Millisecond || s.ConnectTimeout > 5*time.Minute {
		errs.Add("plugins.ssh.connect_timeout", "must be between 100ms and 5m")
	}
	if s.CommandTimeout < time.Second || s.CommandTimeout > MaxStepTimeout {
		errs.Add("plugins.ssh.command_timeout", "must be between 1s and %s", MaxStepTimeout)
	}
}

// resolveHome makes a known_hosts file absolute: ~/ against the home of
// the server's user, any other relative path against manent.yml's
// directory. Without a home, ~/ stays as it is: whoever reads the file
// then says it cannot.
func (c *Config) resolveHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
		return p
	}
	return c.resolve(p)
}

// rawSSHLogin is the ssh section of an environment configuration.
type rawSSHLogin struct {
	KeySecret      string `yaml:"key_secret"`
	PasswordSecret string `yaml:"password_secret"`
}

func (r *rawSSHLogin) login() *deploy.SSHLogin {
	if r == nil {
		return nil
	}
	return &deploy.SSHLogin{KeySecret: r.KeySecret, PasswordSecret: r.PasswordSecret}
}

// sshPlugin is the name of the plugin that reads the ssh section.
const sshPlugin = "ssh"

// checkSSHLogin checks the ssh section: the ssh plugin needs it, with one
// of key_secret and password_secret naming a secret of the secrets
// section; any other plugin would ignore it, so it is refused there.
func checkSSHLogin(errs *yamltree.Errors, plugin string, l *rawSSHLogin, secrets []rawSecret) {
	switch {
	case l == nil && plugin == sshPlugin:
		errs.Add("ssh", "the ssh plugin needs ssh.key_secret or ssh.password_secret: the secret it logs in to the targets with")
		return
	case l == nil:
		return
	case plugin != "" && plugin != sshPlugin:
		errs.Add("ssh", "only the ssh plugin reads ssh; plugin is %s", plugin)
		return
	case (l.KeySecret == "") == (l.PasswordSecret == ""):
		errs.Add("ssh", "must give exactly one of key_secret and password_secret")
		return
	}
	field, name := "ssh.key_secret", l.KeySecret
	if name == "" {
		field, name = "ssh.password_secret", l.PasswordSecret
	}
	for _, s := range secrets {
		if s.Name == name {
			return
		}
	}
	errs.Add(field, "must name a secret of the secrets section (%s is not one)", name)
}
