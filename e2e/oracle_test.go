package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// cliAnswer is everything a script sees of a CLI command.
type cliAnswer struct {
	stdout, stderr string
	code           int
}

// TestCLIAnswersUnreadableAsMissing runs, as an identity that may read
// nothing of hello, the commands that name a deploy, a release or a
// schedule of hello: before they exist, then once they do (the deploy
// awaiting approval). Output and exit code must be the same, byte for
// byte: a script learns nothing of another team's objects.
func TestCLIAnswersUnreadableAsMissing(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy", "activation"}, maxRecovery: 3, governance: approvalRule})
	r.artifact("1.0.0")
	r.env("staging", "plugin: local\ntargets:\n  - path: targets/staging\n")
	r.env("prod", "plugin: local\ntargets:\n  - path: targets/prod\n")
	r.srv.start()

	const deployID, releaseID, schedule = "oracle-prod", "oracle-release", "oracle-nightly"
	named := [][]string{
		{"status", deployID}, {"steps", deployID}, {"logs", deployID},
		{"cancel", deployID}, {"approve", deployID, "--comment", "ok"}, {"reject", deployID},
		{"rollout", "status", deployID}, {"rollout", "pause", deployID}, {"rollout", "resume", deployID, "-m", "ok"},
		{"rollout", "abort", deployID},
		{"release", "status", releaseID}, {"release", "cancel", releaseID},
		{"schedule", "delete", schedule},
	}
	lists := [][]string{{"list"}, {"release", "list"}, {"schedule", "list"}}
	// Each command as a table and as JSON: those naming an object first.
	var commands [][]string
	for _, args := range append(named, lists...) {
		commands = append(commands, args, append(args[:len(args):len(args)], "-o", "json"))
	}
	run := func(token string, args []string) cliAnswer {
		out, errOut, code := r.manent(token, args...)
		return cliAnswer{stdout: out, stderr: errOut, code: code}
	}
	missing := make([]cliAnswer, len(commands))
	for i, args := range commands {
		missing[i] = run(tokenOutsider, args)
	}

	r.submit(r.descriptor(deployID, "prod", "1.0.0", ""))
	r.waitState(deployID, "AWAITING_APPROVAL")
	release := filepath.Join(r.dir, "release.yml")
	write(t, release, `apiVersion: manent/v1
kind: Release
id: `+releaseID+`
deploys:
  - name: staging
    descriptor:
      apiVersion: manent/v1
      application: hello
      environment: staging
      artifact: {type: application, name: hello, version: 1.0.0, source: "file:hello-1.0.0.tar.gz"}
`)
	if _, errOut, code := r.manent(tokenCI, "release", "submit", "-f", release, "--no-wait"); code != 0 {
		t.Fatalf("release submit: exit %d\n%s", code, errOut)
	}
	r.submitSchedule(r.descriptor(schedule, "staging", "1.0.0", "schedule:\n  cron: \"0 3 * * *\"\n"))
	for _, args := range [][]string{{"status", deployID}, {"release", "status", releaseID}} {
		if got := run(tokenAdmin, args); got.code != 0 {
			t.Fatalf("manent %s as a reader: exit %d\n%s", strings.Join(args, " "), got.code, got.stderr)
		}
	}

	for i, args := range commands {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			got := run(tokenOutsider, args)
			if got != missing[i] {
				t.Errorf("unreadable: exit %d\nstdout: %q\nstderr: %q\nmissing: exit %d\nstdout: %q\nstderr: %q",
					got.code, got.stdout, got.stderr, missing[i].code, missing[i].stdout, missing[i].stderr)
			}
		})
	}
	// Not found is a refusal (exit 2), never a permission error (3), and
	// says the same of a kind of object whichever command asks.
	for i, args := range commands[:2*len(named)] {
		want := `manent: deployment "oracle-prod" not found`
		switch args[0] {
		case "release":
			want = `manent: release "oracle-release" not found`
		case "schedule":
			want = `manent: schedule "oracle-nightly" not found`
		}
		if m := missing[i]; m.code != 2 || m.stdout != "" || m.stderr != want+"\n" {
			t.Errorf("manent %s of a missing object: exit %d\nstdout: %q\nstderr: %q, want %q", strings.Join(args, " "), m.code, m.stdout, m.stderr, want)
		}
	}
}
