package sshcommand

import (
	"context"
	"fmt"
	"strings"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/sshexec"
)

// Endpoint is the login of a command step on a target: the step's
// ssh.user instead of the target's when it sets one. An IPv6 address may
// be written in brackets or without.
func Endpoint(t deploy.Target, login *deploy.CustomSSH) sshexec.Endpoint {
	ep := sshexec.Endpoint{Host: strings.TrimSuffix(strings.TrimPrefix(t.Host, "["), "]"), Port: t.Port, User: t.User}
	if login != nil && login.User != "" {
		ep.User = login.User
	}
	return ep
}

// Auth resolves the credentials of a step's login: the secret that
// ssh.key_secret or ssh.password_secret names (exactly one of them).
func Auth(ctx context.Context, login *deploy.CustomSSH, secret func(ctx context.Context, name string) (string, error)) (sshexec.Auth, error) {
	if login == nil || (login.KeySecret == "") == (login.PasswordSecret == "") {
		return sshexec.Auth{}, deploy.Permanentf("a command step needs exactly one of ssh.key_secret and ssh.password_secret")
	}
	if secret == nil {
		return sshexec.Auth{}, deploy.Permanentf("no secrets to log in with")
	}
	if login.KeySecret != "" {
		v, err := secret(ctx, login.KeySecret)
		if err != nil {
			return sshexec.Auth{}, fmt.Errorf("ssh.key_secret %s: %w", login.KeySecret, err)
		}
		return sshexec.Auth{PrivateKey: []byte(v)}, nil
	}
	v, err := secret(ctx, login.PasswordSecret)
	if err != nil {
		return sshexec.Auth{}, fmt.Errorf("ssh.password_secret %s: %w", login.PasswordSecret, err)
	}
	return sshexec.Auth{Password: v}, nil
}

// Connect leases a connection to the target as the step's login, from a
// pool whose known_hosts is pipeline.custom.known_hosts. The pool's
// CommandTimeout should be 0: Run bounds the command by the step's
// timeout, and its own short commands by limits of their own. The
// caller closes the client.
func Connect(ctx context.Context, pool *sshexec.Pool, t deploy.Target, login *deploy.CustomSSH,
	secret func(ctx context.Context, name string) (string, error), logf func(string, ...any)) (*sshexec.Client, error) {
	auth, err := Auth(ctx, login, secret)
	if err != nil {
		return nil, err
	}
	return pool.Client(ctx, Endpoint(t, login), auth, logf)
}
