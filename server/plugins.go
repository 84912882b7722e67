package server

import (
	"fmt"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/plugins/local"
	"manent.dev/manent/engine/plugins/ssh"
	"manent.dev/manent/internal/sshexec"
)

// plugins builds the plugins of manent.yml, closed with the server. dev is
// whether the server runs as manent-server dev: only then may the ssh
// plugin skip the host keys.
func (s *Server) plugins(cfg *config.Config, dev bool) ([]deploy.Plugin, error) {
	if err := checkDev(cfg, dev); err != nil {
		return nil, err
	}
	o := cfg.Plugins.SSH
	if o.InsecureIgnoreHostKey {
		s.log.Warn("plugins.ssh.insecure_ignore_host_key is on: the ssh plugin accepts any host key (dev only)")
	}
	sp := ssh.New(ssh.Options{Parallel: o.Parallel, SSH: sshexec.Options{
		KnownHosts: o.KnownHosts, InsecureIgnoreHostKey: o.InsecureIgnoreHostKey,
		MaxSessionsPerHost: o.MaxSessionsPerHost, ConnectTimeout: o.ConnectTimeout, CommandTimeout: o.CommandTimeout,
	}})
	s.onClose("ssh plugin", sp.Close)
	return []deploy.Plugin{local.New(cfg.Dir), sp}, nil
}

// checkDev refuses what only manent-server dev may configure; Main checks
// it before it opens anything.
func checkDev(cfg *config.Config, dev bool) error {
	if cfg.Plugins.SSH.InsecureIgnoreHostKey && !dev {
		return fmt.Errorf("%s: plugins.ssh.insecure_ignore_host_key: only manent-server dev may accept any host key; "+
			"list the hosts' keys in the file of plugins.ssh.known_hosts", cfg.Path)
	}
	return nil
}
