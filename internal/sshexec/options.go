package sshexec

import "time"

// Defaults of Options left at zero.
const (
	DefaultMaxSessionsPerHost = 4
	DefaultConnectTimeout     = 10 * time.Second
	DefaultIdleTimeout        = 30 * time.Second
	DefaultKeepAlive          = 15 * time.Second
)

// Options configure a Pool.
type Options struct {
	// KnownHosts is the known_hosts file every host key is checked
	// against. It is read again at every connection, so an operator's
	// edit counts without a restart.
	KnownHosts string
	// InsecureIgnoreHostKey accepts any host key. Only a server in dev
	// mode may set it; every lease of a connection then logs a warning.
	InsecureIgnoreHostKey bool
	// MaxSessionsPerHost bounds the sessions open at once on one host
	// (host and port, whatever the user): the sessions of every step of
	// the process, and the handshakes of new connections, which sshd's
	// MaxStartups counts.
	MaxSessionsPerHost int
	// ConnectTimeout bounds a TCP connect and the SSH handshake.
	ConnectTimeout time.Duration
	// CommandTimeout bounds a command, from the opening of its session
	// to its end, and a whole upload (0: only their context does).
	CommandTimeout time.Duration
	// IdleTimeout is how long a connection nobody uses stays open for
	// the next command.
	IdleTimeout time.Duration
	// KeepAlive is the interval of the keepalive requests that find a
	// connection dead without waiting for a command's timeout.
	KeepAlive time.Duration
}

func (o Options) withDefaults() Options {
	if o.MaxSessionsPerHost <= 0 {
		o.MaxSessionsPerHost = DefaultMaxSessionsPerHost
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	return o
}
