package sshexec

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"manent.dev/manent/deploy"
)

// HostKeyError is a host key that known_hosts does not vouch for: an
// unknown host, a changed key (a new installation, or someone in the
// middle), or a revoked key. It is permanent: no command runs on the host
// until an operator decides.
type HostKeyError struct {
	// Host is host:port as dialled.
	Host string
	// Type and Fingerprint (SHA256:...) are of the key the host offered.
	Type        string
	Fingerprint string
	// Known is false for a host known_hosts does not list.
	Known   bool
	Revoked bool
}

func (e *HostKeyError) Error() string {
	switch {
	case e.Revoked:
		return fmt.Sprintf("host %s offered the %s key %s, which known_hosts marks as revoked: no command was run there",
			e.Host, e.Type, e.Fingerprint)
	case e.Known:
		return fmt.Sprintf("the host key of %s has changed: it offered the %s key %s, which known_hosts does not list for it; "+
			"no command was run there (if the change is expected, replace its line in the known_hosts file of plugins.ssh.known_hosts)",
			e.Host, e.Type, e.Fingerprint)
	}
	return fmt.Sprintf("host %s is not in known_hosts: it offered the %s key %s; no command was run there "+
		"(add the host's key to the known_hosts file of plugins.ssh.known_hosts)", e.Host, e.Type, e.Fingerprint)
}

// hostKeys is the callback that checks the key of the host at addr, with
// the key algorithms to ask that host for, and the error the callback
// refused the key with (set once the handshake has failed).
type hostKeys struct {
	callback   ssh.HostKeyCallback
	algorithms []string
	refused    *HostKeyError
}

// probeKey is a key no host has: checking it against known_hosts lists the
// keys the file knows for a host.
var probeKey = func() ssh.PublicKey {
	k, err := ssh.NewPublicKey(ed25519.PublicKey(make([]byte, ed25519.PublicKeySize)))
	if err != nil {
		panic(err) // a constant key of the right size always converts
	}
	return k
}()

// checkHostKeys reads known_hosts for a connection to addr. Missing or
// unreadable, the file is a permanent error that names the setting, not
// the server's path to it.
func (o Options) checkHostKeys(addr string) (*hostKeys, error) {
	if o.InsecureIgnoreHostKey {
		return &hostKeys{callback: ssh.InsecureIgnoreHostKey()}, nil //nolint:gosec // dev mode only, refused otherwise at start-up
	}
	if o.KnownHosts == "" {
		return nil, deploy.Permanentf("no known_hosts file to check the key of %s against: set plugins.ssh.known_hosts", addr)
	}
	cb, err := knownhosts.New(o.KnownHosts)
	if errors.Is(err, os.ErrNotExist) {
		return nil, deploy.Permanentf("the known_hosts file of plugins.ssh.known_hosts does not exist: the key of %s cannot be checked", addr)
	}
	if err != nil {
		return nil, deploy.Permanentf("the known_hosts file of plugins.ssh.known_hosts cannot be read: the key of %s cannot be checked", addr)
	}
	h := &hostKeys{algorithms: knownAlgorithms(cb, addr)}
	h.callback = func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		err := cb(hostname, remote, key)
		if err == nil {
			return nil
		}
		refused := &HostKeyError{Host: addr, Type: key.Type(), Fingerprint: ssh.FingerprintSHA256(key)}
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		switch {
		case errors.As(err, &re):
			refused.Known, refused.Revoked = true, true
		case errors.As(err, &ke):
			refused.Known = len(ke.Want) > 0
		}
		h.refused = refused
		return refused
	}
	return h, nil
}

// knownAlgorithms are the host key algorithms of the keys known_hosts
// lists for addr, so that a host with keys of several types is asked for
// one the file knows (the client's preferred type may be another); nil
// when it lists none, and the host offers what it prefers.
func knownAlgorithms(cb ssh.HostKeyCallback, addr string) []string {
	_, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil
	}
	port, _ := strconv.Atoi(portText)
	var ke *knownhosts.KeyError
	if !errors.As(cb(addr, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}, probeKey), &ke) {
		return nil
	}
	var algos []string
	add := func(names ...string) {
		for _, n := range names {
			if !slices.Contains(algos, n) {
				algos = append(algos, n)
			}
		}
	}
	for _, k := range ke.Want {
		switch t := k.Key.Type(); t {
		case ssh.KeyAlgoRSA:
			add(ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA)
		default:
			add(t)
		}
	}
	return algos
}
