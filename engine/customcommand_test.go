package engine_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/sshtest"
)

const (
	dbAdminValue = "db-admin-5b7d42a8a1c3e5f7"
	dbReadValue  = "db-read-91b2d4c0f3a9c1e5"
)

// sshTargets is two logins on an in-process SSH server, a key for them in
// the secrets of app/prod, a known_hosts file that lists the server, and
// a directory for the programs the steps run and what they report.
type sshTargets struct {
	srv        *sshtest.Server
	knownHosts string
	secretsDir string
	dir        string
	targets    string
}

func newSSHTargets(t *testing.T) *sshTargets {
	t.Helper()
	s := &sshTargets{srv: sshtest.Start(t), dir: t.TempDir()}
	tmp := t.TempDir()
	s.knownHosts = filepath.Join(tmp, "known_hosts")
	s.secretsDir = filepath.Join(tmp, "shm")
	if err := os.Mkdir(s.secretsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Two names of the one server, so that the targets have names of
	// their own: 127.0.0.1 as web1, localhost as web2.
	line := s.srv.KnownHostsLine()
	_, key0, _ := strings.Cut(line, " ")
	hosts := line + "\n" + fmt.Sprintf("[localhost]:%d %s", s.srv.Port(), key0) + "\n"
	if err := os.WriteFile(s.knownHosts, []byte(hosts), 0o600); err != nil {
		t.Fatal(err)
	}
	pub, key := sshtest.NewKey(t)
	var targets []string
	for name, host := range map[string]string{"web1": "127.0.0.1", "web2": "localhost"} {
		u := s.srv.AddUser(name)
		s.srv.AuthorizeKey(u, pub)
		targets = append(targets, fmt.Sprintf("{host: %s, port: %d, user: %s}", host, s.srv.Port(), name))
	}
	slices.Sort(targets)
	s.targets = "[" + strings.Join(targets, ", ") + "]"
	t.Setenv("MANENT_SECRET_SSH_KEY", string(key))
	t.Setenv("MANENT_SECRET_DB_ADMIN", dbAdminValue)
	t.Setenv("MANENT_SECRET_DB_READ", dbReadValue)
	return s
}

// program writes an executable sh script of the targets; $here is its
// directory, where it reports.
func (s *sshTargets) program(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(s.dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\nhere="+s.dir+"\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func (s *sshTargets) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, name))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// commandEnv is an engine whose pipeline runs the command step given as
// YAML after deploy, on app/prod's two SSH targets; stepParams are the
// environment configuration's step_params (a flow mapping's inside).
func commandEnv(t *testing.T, s *sshTargets, step, stepParams string, o envOptions) *env {
	t.Helper()
	o.custom = fmt.Sprintf("{known_hosts: %q, secrets_dir: %q}", s.knownHosts, s.secretsDir)
	o.steps = []string{"{name: artifacts, mode: mandatory}", "{name: deploy, mode: mandatory}", step,
		"{name: activation, mode: optional}"}
	e := newEnvWith(t, o)
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/app/prod.yml"), `plugin: test
targets: `+s.targets+`
step_params: {`+stepParams+`}
secrets:
  - {name: ssh-key, ref: "env:MANENT_SECRET_SSH_KEY"}
  - {name: db-admin, ref: "env:MANENT_SECRET_DB_ADMIN"}
  - {name: db-read, ref: "env:MANENT_SECRET_DB_READ"}
`)
	return e
}

// TestCommandStepThroughTheEngine: run_once runs the command on the first
// target only, as the step's user, with the MANENT_* contract and its
// secret in a file; the outputs are the step's; stdout and stderr reach
// the deploy log masked (the secret as it is and in base64); the audit
// entry names the target it ran on.
func TestCommandStepThroughTheEngine(t *testing.T) {
	s := newSSHTargets(t)
	prog := s.program(t, "migrate", `echo "$MANENT_TARGET $MANENT_STEP $MANENT_DEPLOYMENT_ID $MANENT_PARAM_DATABASE $MANENT_DRY_RUN $*" >> $here/ran
secret=$(cat "$MANENT_SECRETS_DIR/db-admin")
echo "connecting with $secret"
printf '%s' "$secret" | base64 >&2
echo "applied=3" > "$MANENT_OUTPUT"`)
	e := commandEnv(t, s, `{name: migrate, mode: mandatory, type: command, secrets: [db-admin], ssh: {key_secret: ssh-key}, `+
		`params: {database: {pattern: "[a-z]+", required: true}}, outputs: {applied: {pattern: "[0-9]+"}}, `+
		`run: {run_once: true, command: ["`+prog+`", "up", "--to", "{{ .Version }}", "--db={{ .Params.database }}"]}}`,
		"migrate: {database: shop}", envOptions{})
	e.submit("cm-1", "app", "prod")
	d := e.waitState("cm-1", deploy.StateSuccess)
	if st := step(d, "migrate"); st.State != deploy.StepSuccess || st.Output["applied"] != "3" || st.Type != "command" {
		t.Fatalf("migrate %+v", st)
	}
	// MANENT_TARGET is the target's name: its login, host and port.
	if ran, want := s.read(t, "ran"), fmt.Sprintf("web1@127.0.0.1:%d migrate cm-1 shop false up --to 1.0.0 --db=shop\n", s.srv.Port()); ran != want {
		t.Fatalf("ran %q: once, on the first target", ran)
	}
	log := e.logText("cm-1")
	b64 := strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(dbAdminValue)), "=")
	if strings.Contains(log, dbAdminValue) || strings.Contains(log, b64) || !strings.Contains(log, "connecting with ***") {
		t.Fatalf("log:\n%s", log)
	}
	a := e.customAudit("cm-1")
	if outcomes(a) != "started success" || len(a[0]["targets"].([]any)) != 1 || len(a[1]["targets"].([]any)) != 1 || a[1]["actor"] != "token:ci" {
		t.Fatalf("audit %+v", a)
	}
	entries, _ := os.ReadDir(s.secretsDir)
	for _, en := range entries {
		left, _ := filepath.Glob(filepath.Join(s.secretsDir, en.Name(), "*", "*"))
		if len(left) > 0 {
			t.Fatalf("secrets left on the target: %v", left)
		}
	}
}

// TestCommandStepOnEveryTarget: without run_once the command runs on each
// target, one after the other; exit 75 is temporary (the step is tried
// again), another status permanent.
func TestCommandStepOnEveryTarget(t *testing.T) {
	s := newSSHTargets(t)
	prog := s.program(t, "warm", `echo "$MANENT_TARGET" >> $here/ran
if [ ! -e $here/once ]; then touch $here/once; exit 75; fi
[ "$1" = fail ] && exit 3
exit 0`)
	e := commandEnv(t, s, `{name: warm, mode: mandatory, type: command, max_retries: 1, ssh: {key_secret: ssh-key}, `+
		`params: {mode: {pattern: "[a-z]+", default: "ok"}}, run: {command: ["`+prog+`", "{{ .Params.mode }}"]}}`, "", envOptions{})
	e.submit("cm-2", "app", "prod")
	d := e.waitState("cm-2", deploy.StateSuccess)
	if st := step(d, "warm"); st.State != deploy.StepSuccess || st.Attempts != 2 {
		t.Fatalf("warm %+v", st)
	}
	ran := strings.Fields(s.read(t, "ran"))
	if want := fmt.Sprintf("web1@127.0.0.1:%[1]d web1@127.0.0.1:%[1]d web2@localhost:%[1]d", s.srv.Port()); strings.Join(ran, " ") != want {
		t.Fatalf("ran %q: web1 (75), web1 again, then web2", ran)
	}
	if a := e.customAudit("cm-2"); outcomes(a) != "started failed started success" || a[1]["permanent"] != false {
		t.Fatalf("audit %+v", a)
	}
}

// TestCommandStepPermanentFailure: an exit status other than 0 and 75
// fails the step at once, whatever max_retries says.
func TestCommandStepPermanentFailure(t *testing.T) {
	s := newSSHTargets(t)
	prog := s.program(t, "broken", `echo x >> $here/ran; exit 3`)
	e := commandEnv(t, s, `{name: broken, mode: mandatory, type: command, max_retries: 3, ssh: {key_secret: ssh-key}, `+
		`run: {command: ["`+prog+`"]}}`, "", envOptions{})
	e.submit("cm-3", "app", "prod")
	d := e.waitState("cm-3", deploy.StateError)
	if st := step(d, "broken"); st.State != deploy.StepError || st.Attempts != 1 || !strings.Contains(st.Error, "status 3") {
		t.Fatalf("broken %+v", st)
	}
	if ran := s.read(t, "ran"); ran != "x\n" {
		t.Fatalf("ran %q, want once", ran)
	}
	// The audit entry says "the program" for command[0], which the
	// step's error (the log rule) names.
	a := e.customAudit("cm-3")
	if outcomes(a) != "started failed" || a[1]["permanent"] != true {
		t.Fatalf("audit %+v", a)
	}
	if msg, _ := a[1]["error"].(string); !strings.Contains(step(d, "broken").Error, prog) ||
		strings.Contains(msg, prog) || !strings.Contains(msg, "the program exited with status 3") {
		t.Fatalf("audit error %q, step error %q", msg, step(d, "broken").Error)
	}
}

// TestCommandDryRunInAFreeze: a dry run of a command step during a freeze
// is skipped (dry_run: skipped, reason: freeze); with a freezeOverride
// that is accepted it runs its dry_run, with only the dry run's secret.
func TestCommandDryRunInAFreeze(t *testing.T) {
	s := newSSHTargets(t)
	plan := s.program(t, "plan", `echo "$MANENT_DRY_RUN $(ls "$MANENT_SECRETS_DIR")" >> $here/planned`)
	now := time.Now().UTC()
	e := commandEnv(t, s, `{name: migrate, mode: mandatory, type: command, secrets: [db-admin], ssh: {key_secret: ssh-key}, `+
		`params: {database: {pattern: "[a-z]+"}}, run: {command: ["/bin/false"]}, `+
		`dry_run: {command: ["`+plan+`"], secrets: [db-read]}}`, "migrate: {database: shop}",
		envOptions{rules: true, engineYAML: `governance:
  freezes:
    - name: sale
      match: {environment: prod}
      absolute:
        - {from: "` + now.Add(-time.Hour).Format(time.RFC3339) + `", to: "` + now.Add(time.Hour).Format(time.RFC3339) + `"}
`})
	if _, err := e.eng.Submit(e.ctx, []byte(descriptorFor("cm-4", "app", "prod")+"dryRun: true\n"), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	d := e.waitState("cm-4", deploy.StateSuccess)
	if st := step(d, "migrate"); st.Output["dry_run"] != "skipped" || st.Output["reason"] != "freeze" {
		t.Fatalf("migrate %+v", st)
	}
	if p := s.read(t, "planned"); p != "" {
		t.Fatalf("the dry run ran in the freeze: %q", p)
	}
	if !strings.Contains(e.logText("cm-4"), "dry_run: skipped, reason: freeze (window sale") {
		t.Fatalf("log:\n%s", e.logText("cm-4"))
	}
	override := descriptorFor("cm-5", "app", "prod") + "dryRun: true\nfreezeOverride: {reason: \"INC-7\"}\n"
	if _, err := e.eng.Submit(as(e, "token:admin"), []byte(override), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	d = e.waitState("cm-5", deploy.StateSuccess)
	if st := step(d, "migrate"); st.State != deploy.StepSuccess || st.Output["dry_run"] == "skipped" {
		t.Fatalf("migrate with the override %+v", st)
	}
	if p := s.read(t, "planned"); p != "true db-read\ntrue db-read\n" {
		t.Fatalf("planned %q: the dry run on each target, with its own secret only", p)
	}
}

// TestCommandStepRunOnceInARollout: a run_once step between deploy and
// activation runs once per batch, on the batch's first target, and each
// batch's run is audited with its target.
func TestCommandStepRunOnceInARollout(t *testing.T) {
	s := newSSHTargets(t)
	prog := s.program(t, "warm", `echo "$MANENT_TARGET" >> $here/ran
printf 'host=%s\n' "$(printf '%s' "$MANENT_TARGET" | tr -cd 'a-z0-9')" > "$MANENT_OUTPUT"`)
	e := commandEnv(t, s, `{name: warm, mode: mandatory, type: command, ssh: {key_secret: ssh-key}, `+
		`outputs: {host: {pattern: "[a-z0-9]+"}}, run: {run_once: true, command: ["`+prog+`"]}}`, "", envOptions{})
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/app/prod.yml"), `plugin: test
targets: `+s.targets+`
rollout: {waves: [{name: all, batch: 1}]}
secrets:
  - {name: ssh-key, ref: "env:MANENT_SECRET_SSH_KEY"}
`)
	e.submit("cm-6", "app", "prod")
	e.waitState("cm-6", deploy.StateSuccess)
	web1, web2 := fmt.Sprintf("web1@127.0.0.1:%d", s.srv.Port()), fmt.Sprintf("web2@localhost:%d", s.srv.Port())
	if ran := s.read(t, "ran"); ran != web1+"\n"+web2+"\n" {
		t.Fatalf("ran %q: once per batch, on each batch's first target", ran)
	}
	a := e.customAudit("cm-6")
	if outcomes(a) != "started success started success" || toJSON(a[0]["targets"]) != `["`+web1+`"]` ||
		toJSON(a[3]["targets"]) != `["`+web2+`"]` || a[1]["operation"] != "warm[1/1]" {
		t.Fatalf("audit %+v", a)
	}
}

// TestCommandStepChecksHostKeys: the targets' host keys are checked
// against pipeline.custom.known_hosts: a target it does not list is
// refused, permanently, and nothing runs there.
func TestCommandStepChecksHostKeys(t *testing.T) {
	s := newSSHTargets(t)
	prog := s.program(t, "warm", `echo ran >> $here/ran`)
	other := sshtest.Start(t)
	if err := os.WriteFile(s.knownHosts, []byte(strings.Replace(other.KnownHostsLine(),
		fmt.Sprint(other.Port()), fmt.Sprint(s.srv.Port()), 1)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := commandEnv(t, s, `{name: warm, mode: mandatory, type: command, max_retries: 2, ssh: {key_secret: ssh-key}, `+
		`run: {command: ["`+prog+`"]}}`, "", envOptions{})
	e.submit("cm-7", "app", "prod")
	d := e.waitState("cm-7", deploy.StateError)
	if st := step(d, "warm"); st.Attempts != 1 || !strings.Contains(strings.ToLower(st.Error), "host key") {
		t.Fatalf("warm %+v", st)
	}
	if ran := s.read(t, "ran"); ran != "" {
		t.Fatalf("ran %q on a host whose key is not the one known", ran)
	}
}

// TestCommandStepOutputHoldingASecret: a value of $MANENT_OUTPUT that
// holds a secret of the step (as it is, or in base64) is never an output:
// the step fails permanently, and neither its record, its log nor its
// audit entry shows the value.
func TestCommandStepOutputHoldingASecret(t *testing.T) {
	s := newSSHTargets(t)
	prog := s.program(t, "leak", `secret=$(cat "$MANENT_SECRETS_DIR/db-admin")
printf 'applied=%s\n' "$(printf '%s' "$secret" | base64)" > "$MANENT_OUTPUT"`)
	e := commandEnv(t, s, `{name: leak, mode: mandatory, type: command, secrets: [db-admin], ssh: {key_secret: ssh-key}, `+
		`outputs: {applied: {pattern: "[A-Za-z0-9+/=]+"}}, run: {run_once: true, command: ["`+prog+`"]}}`, "", envOptions{})
	e.submit("cm-8", "app", "prod")
	d := e.waitState("cm-8", deploy.StateError)
	st := step(d, "leak")
	if st.State != deploy.StepError || st.Attempts != 1 || len(st.Output) != 0 ||
		!strings.Contains(st.Error, "output applied holds a secret of the step") {
		t.Fatalf("leak %+v", st)
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(dbAdminValue))
	all := toJSON(d) + e.logText("cm-8") + toJSON(e.customAudit("cm-8"))
	if strings.Contains(all, dbAdminValue) || strings.Contains(all, strings.TrimRight(b64, "=")) {
		t.Fatalf("the secret shows: %s", all)
	}
}
