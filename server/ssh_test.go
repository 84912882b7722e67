package server

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manent.dev/manent/internal/sshtest"
)

// TestSSHPluginIsWired deploys hello with plugin: ssh to two logins of an
// in-process SSH server, through the whole server.
func TestSSHPluginIsWired(t *testing.T) {
	configPath, _ := demoConfig(t)
	dir := filepath.Dir(configPath)
	srv := sshtest.Start(t)
	pub, key := sshtest.NewKey(t)
	var targets strings.Builder
	var users []*sshtest.User
	for _, name := range []string{"web1", "web2"} {
		u := srv.AddUser(name)
		srv.AuthorizeKey(u, pub)
		users = append(users, u)
		fmt.Fprintf(&targets, "  - {host: %s, port: %d, user: %s, labels: {region: eu}}\n", srv.Host(), srv.Port(), name)
	}
	writeTestFile(t, filepath.Join(dir, "ssh", "known_hosts"), srv.KnownHostsLine()+"\n")
	appendFile(t, configPath, "plugins:\n  ssh: {known_hosts: ssh/known_hosts, max_sessions_per_host: 2, parallel: 2}\n")
	writeTestFile(t, filepath.Join(dir, "hello-deploy-key"), string(key))
	writeTestFile(t, filepath.Join(dir, "envconfig/demo/hello/ssh.yml"), "plugin: ssh\ntargets:\n"+targets.String()+`params:
  path: apps/hello
  keep_releases: "5"
ssh:
  key_secret: deploy-key
secrets:
  - {name: deploy-key, ref: "file:hello-deploy-key"}
`)
	s := startServer(t, configPath)
	base := s.URL() + "/api/v1/deployments"
	descriptor := strings.Replace(fmt.Sprintf(helloDescriptor, "hello-ssh-1"), "environment: staging", "environment: ssh", 1)
	if resp, body := request(t, "POST", base, demoTokens["ci"], descriptor); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: %d %s", resp.StatusCode, body)
	}
	if states := followSSE(t, base+"/hello-ssh-1/events", demoTokens["ci"]); len(states) == 0 || states[len(states)-1] != "SUCCESS" {
		_, body := request(t, "GET", base+"/hello-ssh-1", demoTokens["ci"], "")
		t.Fatalf("SSE states = %v, want to end with SUCCESS: %s", states, body)
	}
	for _, u := range users {
		link, err := os.Readlink(u.Path("apps/hello/current"))
		if err != nil || link != "releases/1.0.0" {
			t.Errorf("%s: current -> %q (%v), want releases/1.0.0", u.Name, link, err)
		}
		if b, err := os.ReadFile(u.Path("apps/hello/current/index.html")); err != nil || string(b) != "<p>hello</p>" {
			t.Errorf("%s: index.html %q (%v)", u.Name, b, err)
		}
	}
	if srv.PeakSessions() > 2 {
		t.Errorf("%d sessions at once, over plugins.ssh.max_sessions_per_host", srv.PeakSessions())
	}
}

func TestInsecureIgnoreHostKeyNeedsDev(t *testing.T) {
	configPath, _ := demoConfig(t)
	appendFile(t, configPath, "plugins:\n  ssh: {insecure_ignore_host_key: true}\n")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	_, err := Main(t.Context(), Config{ConfigPath: configPath, Logger: log})
	if err == nil || !strings.Contains(err.Error(), "only manent-server dev may accept any host key") {
		t.Fatalf("Main with insecure_ignore_host_key outside dev: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(configPath), "work")); err == nil {
		t.Error("the refused server prepared its work directory")
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeTestFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}
