package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDevOIDCDemo is the single sign-on of the demo with the real
// binaries: manent-server dev prints its development provider's issuer and
// users; alice signs in through the provider's device grant, as with curl
// in docs/oidc.md, and the CLI acts as oidc:alice, with her group; carol,
// a viewer, may not deploy.
func TestDevOIDCDemo(t *testing.T) {
	serverBin, cliBin := binaries(t)
	dir := t.TempDir()
	copyTree(t, filepath.Join(repoRoot(), "examples"), filepath.Join(dir, "examples"))
	r, w := io.Pipe()
	t.Cleanup(func() { _ = w.Close() }) // after the server stopped: cleanups run last first
	printed := make(chan map[string]string, 1)
	go func() {
		issuer := regexp.MustCompile(`development OIDC provider: (http://127\.0\.0\.1:\d+) `)
		user := regexp.MustCompile(`^\s+(alice|bob|carol)\s+password (\S+)`)
		found, sent := map[string]string{}, false
		sc := bufio.NewScanner(r)
		for sc.Scan() { // to the end: the server must never block on its output
			if m := issuer.FindStringSubmatch(sc.Text()); m != nil {
				found["issuer"] = m[1]
			}
			if m := user.FindStringSubmatch(sc.Text()); m != nil {
				found[m[1]] = m[2]
			}
			if len(found) == 4 && !sent {
				printed <- found
				sent = true
			}
		}
	}()
	serverURL := startDevWatching(t, serverBin, dir, freePort(t), w)
	var found map[string]string
	select {
	case found = <-printed:
	case <-time.After(time.Minute):
		t.Fatal("manent-server dev printed no issuer and users")
	}
	issuer := found["issuer"]

	signIn := func(user string) string {
		t.Helper()
		var dc struct {
			DeviceCode      string `json:"device_code"`
			UserCode        string `json:"user_code"`
			VerificationURI string `json:"verification_uri"`
		}
		post(t, issuer+"/device_authorization", url.Values{"client_id": {"manent"}, "scope": {"openid profile groups"}}, http.StatusOK, &dc)
		if !strings.HasPrefix(dc.VerificationURI, issuer+"/") {
			t.Fatalf("verification URI %q is not the issuer's", dc.VerificationURI)
		}
		post(t, dc.VerificationURI, url.Values{"user_code": {dc.UserCode}, "username": {user}, "password": {found[user]},
			"decision": {"allow"}}, http.StatusOK, nil)
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		post(t, issuer+"/oauth/token", url.Values{"client_id": {"manent"}, "device_code": {dc.DeviceCode},
			"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}}, http.StatusOK, &tok)
		return tok.AccessToken
	}
	alice := signIn("alice")
	stdout, stderr, code := cli(t, cliBin, serverURL, alice, "whoami", "-o", "json")
	var who struct {
		Subject string   `json:"subject"`
		Groups  []string `json:"groups"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &who) != nil || who.Subject != "oidc:alice" ||
		len(who.Groups) != 1 || who.Groups[0] != "release-managers" {
		t.Fatalf("whoami as alice: exit %d\n%s\n%s", code, stdout, stderr)
	}
	hello := filepath.Join(dir, "examples/deploys/hello.yml")
	if stdout, stderr, code := cli(t, cliBin, serverURL, alice, "validate", "-f", hello); code != 0 {
		t.Errorf("alice validates hello: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, stderr, code := cli(t, cliBin, serverURL, signIn("carol"), "validate", "-f", hello); code != 3 || !strings.Contains(stderr, "oidc:carol") {
		t.Errorf("carol validates hello: exit %d, want 3\n%s", code, stderr)
	}
	cliLogin(t, cliBin, serverURL, "alice", found["alice"])
}

// cliLogin is manent login through the binary against the demo: the CLI
// prints the provider's verification page and a code, alice approves it
// there (over HTTP, as her browser would) while the CLI polls, and the
// commands that follow, with no MANENT_TOKEN, act as oidc:alice from the
// stored login; manent logout removes it.
func cliLogin(t *testing.T, cliBin, serverURL, user, password string) {
	t.Helper()
	home := t.TempDir()
	env := append(os.Environ(), "MANENT_SERVER="+serverURL, "MANENT_TOKEN=", "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cliBin, "login")
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	prompt := regexp.MustCompile(`open (http://\S+) and enter the code (\S+)`)
	var printed strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		printed.WriteString(sc.Text() + "\n")
		if m := prompt.FindStringSubmatch(sc.Text()); m != nil {
			post(t, m[1], url.Values{"user_code": {m[2]}, "username": {user}, "password": {password}, "decision": {"allow"}}, http.StatusOK, nil)
		}
	}
	if err := cmd.Wait(); err != nil || !strings.Contains(printed.String(), "as oidc:"+user) {
		t.Fatalf("manent login: %v\n%s", err, printed.String())
	}
	run := func(args ...string) (string, string, int) {
		c := exec.CommandContext(ctx, cliBin, args...)
		c.Env = env
		var out, errb strings.Builder
		c.Stdout, c.Stderr = &out, &errb
		code := 0
		if err := c.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatal(err)
			}
			code = ee.ExitCode()
		}
		return out.String(), errb.String(), code
	}
	stdout, stderrText, code := run("whoami", "-o", "json")
	var who struct {
		Subject     string `json:"subject"`
		Credentials string `json:"credentials"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &who) != nil || who.Subject != "oidc:"+user || who.Credentials != "manent login" {
		t.Fatalf("whoami after manent login: exit %d\n%s\n%s", code, stdout, stderrText)
	}
	if _, stderrText, code := run("logout"); code != 0 || !strings.Contains(stderrText, "Signed out") {
		t.Fatalf("manent logout: exit %d\n%s", code, stderrText)
	}
	if _, stderrText, code := run("whoami"); code != 3 {
		t.Fatalf("whoami after logout: exit %d, want 3\n%s", code, stderrText)
	}
}

func post(t *testing.T, target string, form url.Values, status int, out any) {
	t.Helper()
	resp, err := http.PostForm(target, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("POST %s: %s %s", target, resp.Status, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("POST %s: %v: %s", target, err, body)
		}
	}
}
