package ssh

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// stateLines are the lines of a target's state file, a line's fields each.
func (f *fleet) stateLines(t deploy.Target) [][]string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir(t), ".manent", "state"))
	if err != nil {
		f.t.Fatal(err)
	}
	var out [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if fs := strings.Fields(l); len(fs) > 0 {
			out = append(out, fs)
		}
	}
	return out
}

func (f *fleet) stateVersions(t deploy.Target) []string {
	var out []string
	for _, l := range f.stateLines(t) {
		out = append(out, l[0])
	}
	return out
}

// stateOf is "<outcome> <owner>" of each line of version.
func (f *fleet) stateOf(t deploy.Target, version string) []string {
	var out []string
	for _, l := range f.stateLines(t) {
		if l[0] == version && len(l) == 6 {
			out = append(out, l[1]+" "+l[5])
		}
	}
	return out
}

// Versions such as 1.1 and 1.10 (or 2 and 2.0) are two releases: awk's ==
// would compare them as numbers, and the deploy of 1.10 rewrite the state
// line of 1.1, its journal line be taken for written already, and the
// removal of 2.0 drop the line of 2.
func TestNumericLookingVersionsKeepTheirOwnState(t *testing.T) {
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
	// 2 is in service; 2.0 is deployed, then its deploy rolled back.
	if _, err := p.Deploy(ctx, f.request("d2", deploy.StepDeploy, "2", deploy.KindRun)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Activate(ctx, f.request("d2", deploy.StepActivation, "2", deploy.KindRun)); err != nil {
		t.Fatal(err)
	}
	cp, err := p.Checkpoint(ctx, f.request("d2.0", deploy.StepDeploy, "2.0", deploy.KindCheckpoint))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Deploy(ctx, f.request("d2.0", deploy.StepDeploy, "2.0", deploy.KindRun)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Rollback(ctx, f.request("d2.0", deploy.StepDeploy, "2.0", deploy.KindRollback), cp); err != nil {
		t.Fatal(err)
	}
	if got, want := f.stateVersions(tg), []string{"1.1", "1.10", "2"}; !slices.Equal(got, want) {
		t.Errorf("after the removal of 2.0 the state file lists %q, want %q", got, want)
	}
	if rs, _ := f.releases(tg); !slices.Equal(rs, []string{"1.1", "1.10", "2"}) {
		t.Errorf("releases %q, want 1.1, 1.10 and 2", rs)
	}
}

// Two environments (here staging and prod of one application) deploy to
// the same host and path: prod's activation, with keep_releases 1, must
// not prune the releases staging recorded (capistrano#2120 across
// environments).
func TestSharedPathDoesNotPruneTheOtherEnvironmentsSuccesses(t *testing.T) {
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

func TestPrunePlan(t *testing.T) {
	const owner = "demo/hello/prod"
	at := func(i int) entry {
		return entry{version: "v" + string(rune('0'+i)), outcome: outcomeDeployed, owner: owner}
	}
	mk := func(outcomes ...string) []entry {
		var out []entry
		for i, o := range outcomes {
			e := at(i + 1)
			e.outcome = o
			e.at = e.at.AddDate(0, 0, i)
			out = append(out, e)
		}
		return out
	}
	tests := []struct {
		name      string
		entries   []entry
		inService string
		previous  string
		succeeded []string
		keep      int
		want      []string
	}{
		{name: "under keep", entries: mk("activated", "activated"), inService: "v2", previous: "v1", keep: 5},
		{name: "oldest first", entries: mk("activated", "activated", "activated", "activated"), inService: "v4", previous: "v3",
			keep: 2, want: []string{"v1", "v2"}},
		{name: "a failed release goes first", entries: mk("activated", "activated", "rolled-back", "activated", "activated"),
			inService: "v5", previous: "v4", succeeded: []string{"v5", "v4", "v2", "v1"}, keep: 4, want: []string{"v3"}},
		{name: "then the oldest success", entries: mk("activated", "activated", "rolled-back", "activated", "activated"),
			inService: "v5", previous: "v4", succeeded: []string{"v5", "v4", "v2", "v1"}, keep: 3, want: []string{"v3", "v1"}},
		{name: "never the last three successes", entries: mk("activated", "activated", "activated", "activated", "activated"),
			inService: "v5", previous: "v4", succeeded: []string{"v5", "v3", "v2", "v1"}, keep: 1, want: []string{"v1"}},
		{name: "never the one in service or the previous", entries: mk("activated", "activated", "deployed"),
			inService: "v1", previous: "v2", keep: 1, want: []string{"v3"}},
		{name: "outcomes come from manent's record, not the target",
			entries:   mk("activated", "activated", "activated", "activated", "activated", "activated"),
			inService: "v6", previous: "v5", succeeded: []string{"v6", "v1", "v2"}, keep: 4, want: []string{"v3", "v4"}},
		{name: "the lines of another environment are neither counted nor removed",
			entries: func() []entry {
				es := mk("activated", "activated", "activated", "activated", "activated")
				es[0].owner, es[1].owner = "demo/hello/staging", ""
				return es
			}(),
			inService: "v5", keep: 1, want: []string{"v3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := prunePlan(tt.entries, owner, tt.inService, []string{tt.previous}, tt.succeeded, tt.keep)
			if !slices.Equal(got, tt.want) {
				t.Errorf("pruned %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPruneAfterActivation(t *testing.T) {
	f := newFleet(t, 1)
	p := f.plugin()
	ctx := t.Context()
	f.path = "apps/prune"
	var succeeded []string
	versions := []string{"1.0.0", "2.0.0", "3.0.0", "4.0.0", "5.0.0"}
	for i, v := range versions {
		id := "d" + v
		dep := f.request(id, deploy.StepDeploy, v, deploy.KindRun)
		dep.Params["keep_releases"] = "2"
		if _, err := p.Deploy(ctx, dep); err != nil {
			t.Fatal(err)
		}
		act := f.request(id, deploy.StepActivation, v, deploy.KindRun)
		act.Params["keep_releases"] = "2"
		act.Succeeded = slices.Clone(succeeded)
		res, err := p.Activate(ctx, act)
		if err != nil {
			t.Fatal(err)
		}
		if i == 3 {
			// 2.0.0 failed after its activation (a post-test): manent's
			// record says so, whatever the target shows.
			succeeded = slices.DeleteFunc(succeeded, func(s string) bool { return s == "2.0.0" })
		}
		if v != "2.0.0" {
			succeeded = append([]string{v}, succeeded...)
		}
		t.Logf("%s: %s", v, res.Outputs["results"])
	}
	rs, err := f.releases(f.targets[0])
	if err != nil {
		t.Fatal(err)
	}
	// In service 5.0.0, previous 4.0.0, successes 4.0.0, 3.0.0, 1.0.0; the
	// failed 2.0.0 went first, then nothing else could go.
	if want := []string{"1.0.0", "3.0.0", "4.0.0", "5.0.0"}; !slices.Equal(rs, want) {
		t.Errorf("releases %q, want %q", rs, want)
	}
	if ops := f.journalOps(f.targets[0]); !slices.Contains(ops, "prune 2.0.0") {
		t.Errorf("journal %q, want prune 2.0.0", ops)
	}
}

// A crash leaves a target between two parts of a script: each test puts
// the target where the crash left it (the parts before it done, on the
// target's file system) and runs the step again, as the engine does.
func TestAStepRepeatedAfterACrashWritesTheState(t *testing.T) {
	const owner = "demo/hello/test"
	tests := []struct {
		name  string
		crash func(f *fleet, tg deploy.Target) // after a deploy of 1.0.0
		step  string
		want  []string // stateOf 1.0.0 after the step again
	}{{
		name: "deploy: after the rename, before the state line",
		crash: func(f *fleet, tg deploy.Target) {
			f.writeState(tg, "")
		},
		step: deploy.StepDeploy, want: []string{"deployed " + owner},
	}, {
		name: "activation: after the switch, before the state line",
		crash: func(f *fleet, tg deploy.Target) {
			f.appendJournal(tg, "activate", "d1", deploy.StepKey{Step: deploy.StepActivation, Kind: deploy.KindRun}, "1.0.0")
			if err := os.Symlink("releases/1.0.0", filepath.Join(f.dir(tg), "current")); err != nil {
				f.t.Fatal(err)
			}
		},
		step: deploy.StepActivation, want: []string{"activated " + owner},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t, 1)
			p := f.plugin()
			tg := f.targets[0]
			if _, err := p.Deploy(t.Context(), f.request("d1", deploy.StepDeploy, "1.0.0", deploy.KindRun)); err != nil {
				t.Fatal(err)
			}
			tt.crash(f, tg)
			req := f.request("d1", tt.step, "1.0.0", deploy.KindRun)
			run := p.Deploy
			if tt.step == deploy.StepActivation {
				run = p.Activate
			}
			if _, err := run(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			if got := f.stateOf(tg, "1.0.0"); !slices.Equal(got, tt.want) {
				t.Errorf("state of 1.0.0 %q, want %q", got, tt.want)
			}
			want := []string{"deploy 1.0.0"}
			if tt.step == deploy.StepActivation {
				want = append(want, "activate 1.0.0")
			}
			f.wantJournals(want...)
		})
	}
}

// writeState replaces a target's state file.
func (f *fleet) writeState(t deploy.Target, content string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir(t), ".manent", "state"), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// appendJournal adds the journal line a script writes before it acts.
func (f *fleet) appendJournal(t deploy.Target, op, id string, key deploy.StepKey, version string) {
	f.t.Helper()
	req := deploy.PluginRequest{IdempotencyKey: key.IdempotencyKey(id)}
	line := fmt.Sprintf("%s %s %s %s %s\n", time.Now().UTC().Format(stateTime), op, id, req.TargetKey(t), version)
	jf, err := os.OpenFile(filepath.Join(f.dir(t), ".manent", "journal"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	defer func() { _ = jf.Close() }()
	if _, err := jf.WriteString(line); err != nil {
		f.t.Fatal(err)
	}
}

// Every step names the release that was in service the same way, by its
// version, however current's link is written.
func TestPreviousReleaseIsTheVersionInEveryStep(t *testing.T) {
	for _, link := range []string{"releases/1.0.0", "releases/1.0.0/", "ABS/releases/1.0.0"} {
		t.Run(link, func(t *testing.T) {
			f := newFleet(t, 1)
			p := f.plugin()
			ctx := t.Context()
			tg := f.targets[0]
			if _, err := p.Deploy(ctx, f.request("d1", deploy.StepDeploy, "1.0.0", deploy.KindRun)); err != nil {
				t.Fatal(err)
			}
			cur := filepath.Join(f.dir(tg), "current")
			if err := os.Symlink(strings.Replace(link, "ABS", f.dir(tg), 1), cur); err != nil {
				t.Fatal(err)
			}
			dep, err := p.Deploy(ctx, f.request("d2", deploy.StepDeploy, "2.0.0", deploy.KindRun))
			if err != nil {
				t.Fatal(err)
			}
			cp, err := p.Checkpoint(ctx, f.request("d2", deploy.StepActivation, "2.0.0", deploy.KindCheckpoint))
			if err != nil {
				t.Fatal(err)
			}
			act, err := p.Activate(ctx, f.request("d2", deploy.StepActivation, "2.0.0", deploy.KindRun))
			if err != nil {
				t.Fatal(err)
			}
			if dep.Outputs["previous_release"] != "1.0.0" || act.Outputs["previous_release"] != "1.0.0" ||
				!strings.Contains(cp.Data[checkpointTargets], `"current":"1.0.0"`) {
				t.Errorf("previous_release of deploy %q, of activation %q, checkpoint %s; want 1.0.0 in each",
					dep.Outputs["previous_release"], act.Outputs["previous_release"], cp.Data[checkpointTargets])
			}
		})
	}
}

// The deploy of prod rolled back must not remove the release staging
// deployed to the same path in the meantime: it is staging's too.
func TestRollbackOfADeployKeepsAReleaseAnotherEnvironmentRecords(t *testing.T) {
	f := newFleet(t, 1)
	p := f.plugin()
	ctx := t.Context()
	tg := f.targets[0]
	in := func(env string, req deploy.PluginRequest) deploy.PluginRequest {
		req.Environment = env
		return req
	}
	cp, err := p.Checkpoint(ctx, in("prod", f.request("p1", deploy.StepDeploy, "1.0.0", deploy.KindCheckpoint)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Deploy(ctx, in("staging", f.request("s1", deploy.StepDeploy, "1.0.0", deploy.KindRun))); err != nil {
		t.Fatal(err)
	}
	res, err := p.Deploy(ctx, in("prod", f.request("p1", deploy.StepDeploy, "1.0.0", deploy.KindRun)))
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(results(t, res)); !slices.Equal(got, []string{"kept"}) {
		t.Errorf("prod's deploy: %q, want kept", got)
	}
	if got, want := f.stateOf(tg, "1.0.0"), []string{"deployed demo/hello/staging", "deployed demo/hello/prod"}; !slices.Equal(got, want) {
		t.Errorf("state of 1.0.0 %q, want %q", got, want)
	}
	res, err = p.Rollback(ctx, in("prod", f.request("p1", deploy.StepDeploy, "1.0.0", deploy.KindRollback)), cp)
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(results(t, res)); !slices.Equal(got, []string{"kept"}) {
		t.Errorf("prod's rollback: %q, want kept", got)
	}
	if rs, _ := f.releases(tg); !slices.Equal(rs, []string{"1.0.0"}) {
		t.Errorf("releases %q, want staging's 1.0.0", rs)
	}
	if got, want := f.stateOf(tg, "1.0.0"), []string{"deployed demo/hello/staging"}; !slices.Equal(got, want) {
		t.Errorf("state of 1.0.0 %q, want %q", got, want)
	}
	// Staging's own rollback removes it: nobody else records it now.
	if _, err := p.Rollback(ctx, in("staging", f.request("s1", deploy.StepDeploy, "1.0.0", deploy.KindRollback)), cp); err != nil {
		t.Fatal(err)
	}
	if rs, _ := f.releases(tg); len(rs) != 0 {
		t.Errorf("releases %q after staging's rollback, want none", rs)
	}
}
