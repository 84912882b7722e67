package sshcommand

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// suite runs every test of a command step's attempt on h. The same
// tests run against the in-process server and against OpenSSH.
func suite(t *testing.T, h *host) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h *host)
	}{
		{"directory, files and contract", testDirectoryAndContract},
		{"argv arrives byte for byte", testArgv},
		{"exit statuses", testExitStatuses},
		{"outputs", testOutputs},
		{"run.sha256", testSHA256},
		{"a crash leaves the directory, the next attempt removes it", testCrash},
		{"a cancelled run removes its directory", testCancel},
		{"nothing secret in ps or on a command line", testNothingSecretShows},
		{"timeout", testTimeout},
		{"refusals of the target", testRefusals},
		{"a deploy ID too long to name a directory", testLongDeployID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, h) })
	}
}

// request is a run of argv on h for a deploy of its own.
func (h *host) request(t *testing.T, argv ...string) Request {
	t.Helper()
	return Request{
		Client: h.client(t), SecretsDir: h.secretsDir, DeploymentID: unique(t, "d-"), Step: "db-migrate",
		Argv: argv, Timeout: time.Minute, Log: t.Logf,
	}
}

// stepDir is where the attempts of req are.
func stepDir(req Request) string {
	return filepath.Join(req.SecretsDir, deployDir(req.DeploymentID), req.Step)
}

func testDirectoryAndContract(t *testing.T, h *host) {
	p := h.place(t)
	prog := p.program("report", `d=$(dirname "$MANENT_OUTPUT")
stat -c '%a %u %n' "$d" "$d/env" "$MANENT_OUTPUT" "$MANENT_SECRETS_DIR" "$MANENT_SECRETS_DIR"/* | sed "s|$d|DIR|" >"$here/modes"
for f in "$MANENT_SECRETS_DIR"/*; do printf '%s\0' "${f##*/}"; cat "$f"; printf '\0'; done >"$here/secrets"
cat /proc/$$/environ >"$here/environ"
printf '%s' "$d" >"$here/dir"
stat -c '%a' "$d/../.." "$d/../../.." >"$here/shared"`)
	req := h.request(t, prog)
	req.Secrets = map[string]string{
		"db-admin": "p'a\"s$(s)`w`\nord\n",
		"ssh_key":  "-----BEGIN-----\nAAAA\n-----END-----\n",
	}
	contract := Contract{DeploymentID: req.DeploymentID, Step: req.Step, Application: "shop", Environment: "prod",
		Version: "1.2.3", Target: "web1", ArtifactSHA256: strings.Repeat("ab", 32),
		Params:  map[string]string{"database": "shop", "note": "it's $(not) `run`\nsecond line"},
		Outputs: map[string]map[string]string{"post-test": {"url": "https://x.example/a?b=c&d"}}}
	env, err := contract.Env()
	if err != nil {
		t.Fatal(err)
	}
	req.Env = env
	if _, err := Run(t.Context(), req); err != nil {
		t.Fatalf("run: %v", err)
	}

	wantModes := []string{
		fmt.Sprintf("700 %d DIR", h.uid),
		fmt.Sprintf("600 %d DIR/env", h.uid),
		fmt.Sprintf("600 %d DIR/output", h.uid),
		fmt.Sprintf("700 %d DIR/secrets", h.uid),
		fmt.Sprintf("600 %d DIR/secrets/db-admin", h.uid),
		fmt.Sprintf("600 %d DIR/secrets/ssh_key", h.uid),
	}
	if got := strings.Split(strings.TrimSpace(p.read("modes")), "\n"); !slices.Equal(got, wantModes) {
		t.Errorf("modes while the command ran:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantModes, "\n"))
	}
	wantSecrets := "db-admin\x00" + req.Secrets["db-admin"] + "\x00ssh_key\x00" + req.Secrets["ssh_key"] + "\x00"
	if got := p.read("secrets"); got != wantSecrets {
		t.Errorf("secret files %q, want %q", got, wantSecrets)
	}
	dir := p.read("dir")
	if filepath.Dir(dir) != stepDir(req) {
		t.Errorf("the attempt's directory is %s, want one in %s", dir, stepDir(req))
	}
	got := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSuffix(p.read("environ"), "\x00"), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "MANENT_") {
			got[k] = v
		}
	}
	want := map[string]string{}
	for k, v := range env {
		want[k] = v
	}
	want[EnvSecretsDir], want[EnvOutput] = dir+"/secrets", dir+"/output"
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q in the command's environment, want %q", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s is in the command's environment, which the contract does not have", k)
		}
	}
	if got := strings.Fields(p.read("shared")); !slices.Equal(got, []string{"1777", "1777"}) {
		t.Errorf("the deploy's directory and secrets_dir were %v, want 1777 (shared by the logins, as /tmp)", got)
	}
	for _, gone := range []string{dir, stepDir(req), filepath.Dir(stepDir(req))} {
		if exists(t, gone) {
			t.Errorf("%s is still there after the run", gone)
		}
	}
	// secrets_dir goes when it is the login's, so that another login
	// can make it its own; root's stays.
	if exists(t, h.secretsDir) != (h.uid == 0) {
		t.Errorf("secrets_dir there after the run: %v, want %v for uid %d", exists(t, h.secretsDir), h.uid == 0, h.uid)
	}
}

func testArgv(t *testing.T, h *host) {
	p := h.place(t)
	prog := p.program("print-argv", `printf '%s\0' "$0" "$@" >"$here/argv"`)
	hostile := []string{
		"plain", "with space", "  lead and trail  ", "", "it's", `"double"`, `\back\slash\`, "'", "''", `'\''`,
		"$(touch pwned-subst)", "`touch pwned-tick`", "${HOME}", "$HOME", "$1", "$@", "*", "?", "[a]", "~", "~root",
		"; touch pwned-semi", "| touch pwned-pipe", "&& touch pwned-and", "> pwned-redirect", "#comment",
		"-oProxyCommand=touch pwned-option", "--", "-", "--db=x", "new\nline", "cr\r\nlf", "tab\there", "\x1b[31mred",
		"é ü 日本", "=", "a=b", "!", "!!", "%s %n",
	}
	req := h.request(t, append([]string{prog}, hostile...)...)
	stderr := newSink()
	req.Stderr = stderr
	if _, err := Run(t.Context(), req); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.text())
	}
	want := strings.Join(append([]string{prog}, hostile...), "\x00") + "\x00"
	if got := p.read("argv"); got != want {
		t.Errorf("argv\n%q\nwant\n%q", got, want)
	}
	// The commands run in the login's home: nothing there or in the
	// program's directory may be created by an argument.
	for _, d := range []string{p.dir, h.home} {
		matches, _ := filepath.Glob(filepath.Join(d, "pwned*"))
		if len(matches) > 0 {
			t.Errorf("an argument ran as shell code: %v", matches)
		}
	}
}

// exitCase is a program that ends so, and what Run says of it.
type exitCase struct {
	name      string
	body      string
	ok        bool
	permanent bool
	code      int
	want      string
}

func testExitStatuses(t *testing.T, h *host) {
	secret := unique(t, "s3cr3t-")
	tests := []exitCase{
		{name: "0 is success", body: "exit 0", ok: true},
		{name: "75 is temporary", body: "exit 75", code: 75, want: "exited with status 75"},
		{name: "1 is permanent", body: "exit 1", permanent: true, code: 1, want: "exited with status 1 on"},
		{name: "64 is permanent", body: "exit 64", permanent: true, code: 64, want: "exited with status 64"},
		{name: "124 before the timeout is the command's own", body: "exit 124", permanent: true, code: 124, want: "exited with status 124"},
		{name: "127 is permanent", body: "exit 127", permanent: true, code: 127, want: "exited with status 127"},
		{name: "the secret on stderr stays out of the error", body: `cat "$MANENT_SECRETS_DIR/token" >&2; echo >&2; exit 3`,
			permanent: true, code: 3, want: "exited with status 3"},
	}
	if h.signals {
		tests = append(tests, exitCase{name: "a signal is temporary", body: "kill -9 $$", want: "was killed by signal KILL"})
	} else {
		tests = append(tests, exitCase{name: "a signal a shell reports as 128+n is an exit status", body: "kill -9 $$",
			permanent: true, code: 137, want: "exited with status 137"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := h.place(t)
			req := h.request(t, p.program("exit", tt.body))
			req.Secrets = map[string]string{"token": secret}
			stderr := newSink()
			req.Stderr = stderr
			_, err := Run(t.Context(), req)
			if tt.ok {
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("the run succeeded")
			}
			if deploy.IsPermanent(err) != tt.permanent {
				t.Errorf("permanent %v, want %v: %v", deploy.IsPermanent(err), tt.permanent, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to say %q", err, tt.want)
			}
			var ee *ExitError
			if tt.code != 0 && (!errors.As(err, &ee) || ee.Code != tt.code) {
				t.Errorf("error %v, want an *ExitError with code %d", err, tt.code)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error shows the secret: %v", err)
			}
			if strings.Contains(tt.body, "token") && !strings.Contains(stderr.text(), secret) {
				t.Errorf("stderr %q, want the command's own output (the caller masks it)", stderr.text())
			}
			if exists(t, stepDir(req)) {
				t.Errorf("%s is still there after a failed run", stepDir(req))
			}
		})
	}
}

func testOutputs(t *testing.T, h *host) {
	secret := unique(t, "s3cr3t-")
	declared := map[string]deploy.OutputSpec{"applied": {Pattern: "[0-9]{1,6}"}, "note": {Pattern: "[a-z ]*"}}
	tests := []struct {
		name    string
		content string
		want    map[string]string
		err     string
	}{
		{name: "declared keys", content: "applied=42\nnote=all good\n", want: map[string]string{"applied": "42", "note": "all good"}},
		{name: "no outputs written", content: "", want: map[string]string{}},
		{name: "crlf lines and blank lines", content: "applied=7\r\n\r\n", want: map[string]string{"applied": "7"}},
		{name: "exactly 16 KiB", content: "note=" + strings.Repeat("x", MaxOutputBytes-6) + "\n",
			want: map[string]string{"note": strings.Repeat("x", MaxOutputBytes-6)}},
		{name: "over 16 KiB", content: "note=" + strings.Repeat("x", MaxOutputBytes-5) + "\n", err: "holds 16385 bytes, more than 16384"},
		{name: "undeclared key", content: "applied=1\nrows=3\n", err: `line 2 sets "rows", which the step does not declare (it declares applied, note)`},
		{name: "a secret as the key", content: secret + "=1\n", err: "sets a key (not shown: it may be secret)"},
		{name: "pattern mismatch", content: "applied=" + secret + "\n", err: "the value of applied (line 1) does not match its pattern [0-9]{1,6}"},
		{name: "not key=value", content: secret + "\n", err: "line 1 is not key=value"},
		{name: "a key twice", content: "applied=1\napplied=2\n", err: "line 2 sets applied again"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := h.place(t)
			p.write("content", tt.content)
			req := h.request(t, p.program("out", `cat "$here/content" >"$MANENT_OUTPUT"`))
			req.Outputs = declared
			req.Secrets = map[string]string{"token": secret}
			got, err := Run(t.Context(), req)
			if tt.err != "" {
				if err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("run: %v, want a permanent error that says %q", err, tt.err)
				}
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error shows the secret: %v", err)
				}
			} else if err != nil {
				t.Fatalf("run: %v", err)
			} else if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("outputs %v, want %v", got, tt.want)
			}
			if exists(t, stepDir(req)) {
				t.Errorf("%s is still there after the run", stepDir(req))
			}
		})
	}
}

func testSHA256(t *testing.T, h *host) {
	p := h.place(t)
	prog := p.program("tool", `touch "$here/ran"`)
	b, err := os.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	good := hex.EncodeToString(sum[:])

	req := h.request(t, prog)
	req.SHA256 = strings.Repeat("0", 64)
	req.Target = "web1"
	req.Secrets = map[string]string{"token": "x"}
	_, err = Run(t.Context(), req)
	want := "run.sha256 does not match " + prog + " on web1"
	if err == nil || !deploy.IsPermanent(err) || err.Error() != want {
		t.Fatalf("run with a wrong run.sha256: %v, want the permanent error %q", err, want)
	}
	if exists(t, filepath.Join(p.dir, "ran")) {
		t.Error("the program ran although its SHA-256 does not match")
	}
	if exists(t, stepDir(req)) {
		t.Errorf("%s is there after the refusal", stepDir(req))
	}

	for _, s := range []string{good, strings.ToUpper(good)} {
		req := h.request(t, prog)
		req.SHA256 = s
		if _, err := Run(t.Context(), req); err != nil {
			t.Fatalf("run with the right run.sha256 %s: %v", s, err)
		}
		if !exists(t, filepath.Join(p.dir, "ran")) {
			t.Error("the program did not run")
		}
		_ = os.Remove(filepath.Join(p.dir, "ran"))
	}
}

// testCrash kills an attempt as a worker's crash would: its command is
// cut off and nothing of manent is left to remove the directory.
func testCrash(t *testing.T, h *host) {
	p := h.place(t)
	fifo := p.fifo("fifo")
	prog := p.program("step", `if [ "$1" = first ]; then
`+blockOn(fifo)+`fi
ls -a "$(dirname "$(dirname "$MANENT_OUTPUT")")" >"$here/attempts"`)
	first := h.request(t, prog, "first")
	first.Secrets = map[string]string{"db-admin": "hunter2"}
	a, err := newAttempt(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.prepare(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := a.upload(t.Context()); err != nil {
		t.Fatal(err)
	}
	out := newSink("ready")
	a.req.Stdout = out
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- a.exec(ctx) }()
	await(t, out.seen("ready"), done)
	cancel()
	if err := <-done; err == nil || deploy.IsPermanent(err) {
		t.Fatalf("the cut-off attempt: %v, want a temporary error", err)
	}
	left := filepath.Join(a.dir, "secrets", "db-admin")
	if !exists(t, left) {
		t.Fatalf("the crashed attempt left no %s: the test proves nothing", left)
	}

	next := first
	next.Argv = []string{prog, "second"}
	next.Client = h.client(t)
	if _, err := Run(t.Context(), next); err != nil {
		t.Fatalf("the next attempt: %v", err)
	}
	if exists(t, a.dir) {
		t.Errorf("the next attempt left the crashed attempt's directory %s", a.dir)
	}
	var entries []string
	for _, e := range strings.Fields(p.read("attempts")) {
		if e != "." && e != ".." {
			entries = append(entries, e)
		}
	}
	if len(entries) != 1 || entries[0] == filepath.Base(a.dir) {
		t.Errorf("the next attempt ran beside %v, want its own directory only", entries)
	}
	if exists(t, stepDir(first)) {
		t.Errorf("%s is still there after the next attempt", stepDir(first))
	}
}

func testCancel(t *testing.T, h *host) {
	p := h.place(t)
	fifo := p.fifo("fifo")
	prog := p.program("step", blockOn(fifo))
	req := h.request(t, prog)
	req.Secrets = map[string]string{"db-admin": "hunter2"}
	out := newSink("ready")
	req.Stdout = out
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, req)
		done <- err
	}()
	await(t, out.seen("ready"), done)
	cancel()
	if err := <-done; err == nil || deploy.IsPermanent(err) || !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled run: %v, want a temporary error that says it was cancelled", err)
	}
	if exists(t, stepDir(req)) {
		t.Errorf("%s is still there after a cancelled run", stepDir(req))
	}
}

func testNothingSecretShows(t *testing.T, h *host) {
	p := h.place(t)
	fifo := p.fifo("fifo")
	prog := p.program("step", blockOn(fifo))
	secret, param := unique(t, "s3cr3t-"), unique(t, "param-")
	req := h.request(t, prog, "--visible-argument")
	req.Secrets = map[string]string{"db-admin": secret}
	req.Env = map[string]string{"MANENT_PARAM_DATABASE": param}
	out := newSink("ready")
	req.Stdout = out
	done := make(chan error, 1)
	go func() {
		_, err := Run(t.Context(), req)
		done <- err
	}()
	await(t, out.seen("ready"), done)
	ps, err := exec.Command("ps", "-eo", "args").Output()
	release(t, fifo)
	if err != nil {
		t.Fatalf("ps: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	if !strings.Contains(string(ps), prog+" --visible-argument") {
		t.Fatalf("ps does not show the command while it runs, so it proves nothing:\n%s", ps)
	}
	for _, v := range []string{secret, param} {
		if strings.Contains(string(ps), v) {
			t.Errorf("ps shows %q while the command runs", v)
		}
	}
	if h.commands == nil {
		return
	}
	cmds := h.commands()
	if len(cmds) == 0 {
		t.Fatal("the host recorded no command")
	}
	for _, c := range cmds {
		if strings.Contains(c, secret) || strings.Contains(c, param) {
			t.Errorf("a command line holds a secret or a MANENT_ value: %q", c)
		}
	}
}

func testTimeout(t *testing.T, h *host) {
	p := h.place(t)
	prog := p.program("slow", `printf '%s' $$ >"$here/pid"
exec sleep 600`)
	req := h.request(t, prog)
	req.Timeout = time.Second
	started := time.Now()
	_, err := Run(t.Context(), req)
	if err == nil || deploy.IsPermanent(err) || !strings.Contains(err.Error(), "timed out after 1s") {
		t.Fatalf("run: %v, want a temporary timeout", err)
	}
	if !strings.Contains(err.Error(), "timeout(1) stopped it") {
		t.Errorf("error %q, want timeout(1) to have stopped the command on the target", err)
	}
	if d := time.Since(started); d > time.Minute {
		t.Errorf("the run took %s", d)
	}
	var pid int
	if _, err := fmt.Sscan(p.read("pid"), &pid); err != nil {
		t.Fatalf("pid: %v", err)
	}
	if err := exec.Command("kill", "-0", fmt.Sprint(pid)).Run(); err == nil {
		t.Errorf("the command (pid %d) still runs on the target after its timeout", pid)
	}
	if exists(t, stepDir(req)) {
		t.Errorf("%s is still there after the timeout", stepDir(req))
	}
}

func testRefusals(t *testing.T, h *host) {
	p := h.place(t)
	prog := p.program("tool", `touch "$here/ran"`)
	notExec := filepath.Join(p.dir, "not-executable")
	p.write("not-executable", "#!/bin/sh\n")
	link := filepath.Join(p.dir, "link")
	if err := os.Symlink(h.secretsDir, link); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(p.dir, "foreign")
	if err := os.Mkdir(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(foreign, 54321, 54321); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(p.dir, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		tune func(r *Request)
		want string
	}{
		{"a program that is not executable", func(r *Request) { r.Argv = []string{notExec} }, notExec + " is not an executable file"},
		{"a program that is not there", func(r *Request) { r.Argv = []string{"/nonexistent/tool"} }, "/nonexistent/tool is not an executable file"},
		{"secrets_dir is a symbolic link", func(r *Request) { r.SecretsDir = link }, link + " is not a directory (a symbolic link?)"},
		{"secrets_dir is writable by all without the sticky bit", func(r *Request) { r.SecretsDir = open }, open + " is writable by other users without the sticky bit"},
		{"secrets_dir belongs to another user", func(r *Request) { r.SecretsDir = foreign }, foreign + " belongs to another user (uid 54321)"},
		{"the parent of secrets_dir is missing", func(r *Request) { r.SecretsDir = filepath.Join(p.dir, "no/such") }, "its parent directory must exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := h.request(t, prog)
			tt.tune(&req)
			_, err := Run(t.Context(), req)
			if err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("run: %v, want a permanent error that says %q", err, tt.want)
			}
			if exists(t, filepath.Join(p.dir, "ran")) {
				t.Error("the program ran")
			}
		})
	}
}
