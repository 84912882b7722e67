package sshexec_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/sshexec"
)

// A password login answers keyboard-interactive questions that ask for
// the password, and nothing else: a second factor gets no password and
// fails the login, saying why.
func TestPasswordGoesToPasswordPromptsOnly(t *testing.T) {
	const password = "s3cret pass"
	tests := []struct {
		name   string
		rounds [][]string // the questions of each round, never echoed
		echo   bool
		ok     bool
	}{
		{name: "PAM's password prompt", rounds: [][]string{{"Password: "}}, ok: true},
		{name: "OpenSSH's password prompt", rounds: [][]string{{"deploy@web1's password: "}}, ok: true},
		{name: "a one-time code", rounds: [][]string{{"Verification code: "}}},
		{name: "a code after the password", rounds: [][]string{{"Password: "}, {"Verification code: "}}},
		{name: "a password prompt that echoes", rounds: [][]string{{"Password: "}}, echo: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string // the answers to questions that are not password prompts
			cfg := &ssh.ServerConfig{
				PasswordCallback: func(ssh.ConnMetadata, []byte) (*ssh.Permissions, error) {
					return nil, errors.New("keyboard-interactive only")
				},
				KeyboardInteractiveCallback: func(_ ssh.ConnMetadata, ask ssh.KeyboardInteractiveChallenge) (*ssh.Permissions, error) {
					for _, qs := range tt.rounds {
						echos := make([]bool, len(qs))
						for i := range echos {
							echos[i] = tt.echo
						}
						answers, err := ask("", "", qs, echos)
						if err != nil {
							return nil, err
						}
						for i, a := range answers {
							asksPassword := strings.Contains(strings.ToLower(qs[i]), "password") && !tt.echo
							if !asksPassword {
								mu.Lock()
								got = append(got, a)
								mu.Unlock()
							}
							if asksPassword && a != password {
								return nil, errors.New("wrong password")
							}
						}
					}
					return nil, nil
				},
			}
			ep, kh := rawServer(t, cfg, func(chans <-chan ssh.NewChannel) {
				for nch := range chans {
					_ = nch.Reject(ssh.Prohibited, "no sessions")
				}
			})
			pool := sshexec.NewPool(sshexec.Options{KnownHosts: kh})
			t.Cleanup(func() { _ = pool.Close() })
			c, err := pool.Client(t.Context(), ep, sshexec.Auth{Password: password}, t.Logf)
			if tt.ok {
				if err != nil {
					t.Fatalf("client: %v", err)
				}
				c.Close()
				return
			}
			if err == nil {
				c.Close()
				t.Fatal("logged in, want a refused login")
			}
			if !deploy.IsPermanent(err) || !strings.Contains(err.Error(), "not a password prompt") || strings.Contains(err.Error(), password) {
				t.Errorf("client: %v, want a permanent error saying the question is not a password prompt", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if slices.Contains(got, password) {
				t.Errorf("the password was given to a question that does not ask for it (answers %q)", got)
			}
		})
	}
}
