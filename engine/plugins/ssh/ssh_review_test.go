package ssh

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
)

func (f *fleet) stateVersions(t deploy.Target) []string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir(t), ".manent", "state"))
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if fs := strings.Fields(l); len(fs) > 0 {
			out = append(out, fs[0])
		}
	}
	return out
}

// TestReviewNumericLookingVersionsKeepTheirOwnState: the descriptor allows
// versions such as 1.1 and 1.10 (or 2 and 2.0), but the scripts compare
// them with awk's ==, which compares numeric-looking strings as numbers:
// the deploy of 1.10 rewrites the state line of 1.1 instead of adding its
// own, and its journal line is taken for already written. Pruning then
// never sees 1.10, and the record of 1.1 carries 1.10's digest and
// deployment.
func TestReviewNumericLookingVersionsKeepTheirOwnState(t *testing.T) {
	f := newFleet(t, 1)
	p := f.plugin()
	ctx := t.Context()
	for _, v := range []string{"1.1", "1.10"} {
		if _, err := p.Deploy(ctx, f.request("d"+v, deploy.StepDeploy, v, deploy.KindRun)); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Activate(ctx, f.request("d"+v, deploy.StepActivation, v, deploy.KindRun)); err != nil {
			t.Fatal(err)
		}
	}
	tg := f.targets[0]
	if got, want := f.stateVersions(tg), []string{"1.1", "1.10"}; !slices.Equal(got, want) {
		t.Errorf("state file lists %q, want %q", got, want)
	}
	if got, want := f.journalOps(tg), []string{"deploy 1.1", "activate 1.1", "deploy 1.10", "activate 1.10"}; !slices.Equal(got, want) {
		t.Errorf("journal %q, want %q", got, want)
	}
}

// TestReviewSharedPathDoesNotPruneTheOtherEnvironmentsSuccesses: two
// environments (here staging and prod of one application) deploy to the
// same host and path. The state file does not say whose release a line
// is, and pruning protects only the successes of the environment that
// activates: prod's first activation removes the last successful
// releases staging recorded (capistrano#2120 across environments).
func TestReviewSharedPathDoesNotPruneTheOtherEnvironmentsSuccesses(t *testing.T) {
	f := newFleet(t, 1)
	p := f.plugin()
	ctx := t.Context()
	var stagingSucceeded []string
	for _, v := range []string{"1.0.0", "2.0.0", "3.0.0", "4.0.0"} {
		dep := f.request("s"+v, deploy.StepDeploy, v, deploy.KindRun)
		dep.Environment = "staging"
		if _, err := p.Deploy(ctx, dep); err != nil {
			t.Fatal(err)
		}
		act := f.request("s"+v, deploy.StepActivation, v, deploy.KindRun)
		act.Environment = "staging"
		act.Succeeded = slices.Clone(stagingSucceeded)
		if _, err := p.Activate(ctx, act); err != nil {
			t.Fatal(err)
		}
		stagingSucceeded = append([]string{v}, stagingSucceeded...)
	}
	dep := f.request("p9", deploy.StepDeploy, "9.0.0", deploy.KindRun)
	dep.Environment = "prod"
	dep.Params["keep_releases"] = "1"
	if _, err := p.Deploy(ctx, dep); err != nil {
		t.Fatal(err)
	}
	act := f.request("p9", deploy.StepActivation, "9.0.0", deploy.KindRun)
	act.Environment = "prod"
	act.Params["keep_releases"] = "1"
	if _, err := p.Activate(ctx, act); err != nil {
		t.Fatal(err)
	}
	rs, err := f.releases(f.targets[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range stagingSucceeded[:3] {
		if !slices.Contains(rs, v) {
			t.Errorf("prod's activation pruned %s, one of the last three successes of staging on the same path (left: %q)", v, rs)
		}
	}
}
