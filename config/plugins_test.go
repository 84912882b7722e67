package config_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

func TestPluginsSSH(t *testing.T) {
	dir := t.TempDir()
	// A home of its own, so ~/ always resolves, wherever the test runs.
	home := t.TempDir()
	t.Setenv("HOME", home)
	tests := []struct {
		name string
		doc  string
		want config.SSHPlugin
	}{
		{name: "defaults", doc: "{}\n", want: config.SSHPlugin{
			KnownHosts: filepath.Join(home, ".ssh/known_hosts"), MaxSessionsPerHost: 4, Parallel: 10,
			ConnectTimeout: 10 * time.Second, CommandTimeout: 10 * time.Minute}},
		{name: "relative to manent.yml", doc: `plugins:
  ssh: {known_hosts: ssh/known_hosts, max_sessions_per_host: 2, parallel: 50, connect_timeout: 3s, command_timeout: 1m}
`, want: config.SSHPlugin{KnownHosts: filepath.Join(dir, "ssh/known_hosts"), MaxSessionsPerHost: 2, Parallel: 50,
			ConnectTimeout: 3 * time.Second, CommandTimeout: time.Minute}},
		{name: "absolute, and insecure (refused by the server unless dev)", doc: `plugins:
  ssh: {known_hosts: /etc/ssh/ssh_known_hosts, insecure_ignore_host_key: true}
`, want: config.SSHPlugin{KnownHosts: "/etc/ssh/ssh_known_hosts", InsecureIgnoreHostKey: true, MaxSessionsPerHost: 4,
			Parallel: 10, ConnectTimeout: 10 * time.Second, CommandTimeout: 10 * time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Parse([]byte(tt.doc), dir)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Plugins.SSH, tt.want) {
				t.Errorf("plugins.ssh = %+v, want %+v", c.Plugins.SSH, tt.want)
			}
		})
	}
}

func TestPluginsSSHErrors(t *testing.T) {
	doc := `plugins:
  ssh: {known_hosts: "", max_sessions_per_host: 0, parallel: 501, connect_timeout: 1ms, command_timeout: 0s, port: 22}
`
	_, err := config.Parse([]byte(doc), t.TempDir())
	want := []string{
		"plugins.ssh.port: unknown field",
		"plugins.ssh.known_hosts: must name a known_hosts file (default ~/.ssh/known_hosts)",
		"plugins.ssh.max_sessions_per_host: must be between 1 and 10: the sessions of a login share one connection",
		"plugins.ssh.parallel: must be between 1 and 500",
		"plugins.ssh.connect_timeout: must be between 100ms and 5m",
		"plugins.ssh.command_timeout: must be between 1s and 6h0m0s",
	}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("err = %v, want %q", err, w)
		}
	}
}

// More sessions than sshd's default MaxSessions on one connection would
// be refused by every host left at its default.
func TestPluginsSSHSessionsAtMostSSHDsMaxSessions(t *testing.T) {
	for n, ok := range map[int]bool{1: true, 10: true, 11: false, 64: false} {
		doc := fmt.Sprintf("plugins:\n  ssh: {max_sessions_per_host: %d}\n", n)
		_, err := config.Parse([]byte(doc), t.TempDir())
		if ok != (err == nil) {
			t.Errorf("max_sessions_per_host %d: %v, want ok %v", n, err, ok)
		}
	}
}

func TestEnvConfigSSHLogin(t *testing.T) {
	c, err := config.Parse([]byte("{}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const targets = "targets: [{host: 10.0.0.5, port: 22, user: deploy, labels: {region: eu}}]\nparams: {path: apps/hello}\n"
	const secrets = "secrets:\n  - {name: deploy-key, ref: 'file:hello-deploy-key'}\n  - {name: pw, ref: 'env:MANENT_SECRET_PW'}\n"
	tests := []struct {
		name string
		doc  string
		want *deploy.SSHLogin
		errs []string
	}{
		{name: "key", doc: "plugin: ssh\n" + targets + "ssh: {key_secret: deploy-key}\n" + secrets,
			want: &deploy.SSHLogin{KeySecret: "deploy-key"}},
		{name: "password", doc: "plugin: ssh\n" + targets + "ssh: {password_secret: pw}\n" + secrets,
			want: &deploy.SSHLogin{PasswordSecret: "pw"}},
		{name: "missing", doc: "plugin: ssh\n" + targets + secrets,
			errs: []string{"ssh: the ssh plugin needs ssh.key_secret or ssh.password_secret: the secret it logs in to the targets with"}},
		{name: "both", doc: "plugin: ssh\n" + targets + "ssh: {key_secret: deploy-key, password_secret: pw}\n" + secrets,
			errs: []string{"ssh: must give exactly one of key_secret and password_secret"}},
		{name: "neither", doc: "plugin: ssh\n" + targets + "ssh: {}\n" + secrets,
			errs: []string{"ssh: must give exactly one of key_secret and password_secret"}},
		{name: "not a listed secret", doc: "plugin: ssh\n" + targets + "ssh: {key_secret: other}\n" + secrets,
			errs: []string{"ssh.key_secret: must name a secret of the secrets section (other is not one)"}},
		{name: "unknown key", doc: "plugin: ssh\n" + targets + "ssh: {key: deploy-key, key_secret: deploy-key}\n" + secrets,
			errs: []string{"ssh.key: unknown field"}},
		{name: "another plugin", doc: "plugin: local\ntargets: [{path: /srv/a}]\nssh: {key_secret: deploy-key}\n" + secrets,
			errs: []string{"ssh: only the ssh plugin reads ssh; plugin is local"}},
		{name: "another plugin without ssh", doc: "plugin: local\ntargets: [{path: /srv/a}]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ec, err := c.ParseEnvConfig([]byte(tt.doc))
			if tt.errs == nil {
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(ec.SSH, tt.want) {
					t.Errorf("ssh = %+v, want %+v", ec.SSH, tt.want)
				}
				eff, err := config.Merge(&deploy.Descriptor{Application: "hello", Environment: "ssh"}, ec, config.DescriptorPolicy{}, "demo")
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(eff.SSH, tt.want) {
					t.Errorf("effective ssh = %+v, want %+v", eff.SSH, tt.want)
				}
				return
			}
			var e *deploy.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want %q", err, tt.errs)
			}
			got := make([]string, len(e.Fields))
			for i, f := range e.Fields {
				got[i] = f.String()
			}
			if !reflect.DeepEqual(got, tt.errs) {
				t.Errorf("problems %q, want %q", got, tt.errs)
			}
		})
	}
}
