package ssh

import (
	"archive/tar"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	xssh "golang.org/x/crypto/ssh"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/sshtest"
)

func sshFingerprint(s *sshtest.Server) string { return xssh.FingerprintSHA256(s.HostKey()) }

// results decodes the results output of a step.
func results(t *testing.T, res deploy.Result) []result {
	t.Helper()
	var out []result
	if err := json.Unmarshal([]byte(res.Outputs["results"]), &out); err != nil {
		t.Fatalf("results output %q: %v", res.Outputs["results"], err)
	}
	return out
}

func outcomes(rs []result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Outcome
	}
	return out
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// journalOps is the journal of a target as "op version" lines.
func (f *fleet) journalOps(t deploy.Target) []string {
	f.t.Helper()
	lines, err := f.journal(t)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, l := range lines {
		out = append(out, l[1]+" "+l[4])
	}
	return out
}

func (f *fleet) wantJournals(want ...string) {
	f.t.Helper()
	for _, t := range f.targets {
		if got := f.journalOps(t); !slices.Equal(got, want) {
			f.t.Errorf("%s: journal %q, want %q", t.User, got, want)
		}
	}
}

func (f *fleet) wantCurrent(version string) {
	f.t.Helper()
	for _, t := range f.targets {
		got, err := f.current(t)
		if err != nil || got != version {
			f.t.Errorf("%s: current %q (%v), want %q", t.User, got, err, version)
		}
	}
}

func (f *fleet) execs() int {
	n := 0
	for _, s := range f.servers {
		n += s.Execs()
	}
	return n
}

func TestDeployAndActivateOnEveryTarget(t *testing.T) {
	for _, sftp := range []bool{true, false} {
		name := "sftp"
		if !sftp {
			name = "stdin"
		}
		t.Run(name, func(t *testing.T) {
			f := newFleet(t, 1, 2)
			if !sftp {
				for _, s := range f.servers {
					s.DisableSFTP()
				}
			}
			p := f.plugin()
			ctx := t.Context()
			req := f.request("d1", deploy.StepDeploy, "1.0.0", deploy.KindRun)
			res, err := p.Deploy(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if got := outcomes(results(t, res)); !slices.Equal(got, repeat("unpacked", 3)) {
				t.Errorf("outcomes %q, want unpacked on each target", got)
			}
			if res.Outputs["release_path"] != "apps/hello/releases/1.0.0" || res.Outputs["previous_release"] != "" {
				t.Errorf("outputs %v, want release_path apps/hello/releases/1.0.0 and no previous release", res.Outputs)
			}
			for _, tg := range f.targets {
				b, err := os.ReadFile(filepath.Join(f.dir(tg), "releases/1.0.0/www/index.html"))
				if err != nil || string(b) != "<h1>1.0.0</h1>" {
					t.Errorf("%s: index.html %q (%v)", tg.User, b, err)
				}
				// No upload, no staging directory left.
				if left, _ := filepath.Glob(filepath.Join(f.dir(tg), ".manent/upload-*")); len(left) > 0 {
					t.Errorf("%s: uploads left: %q", tg.User, left)
				}
				if left, _ := filepath.Glob(filepath.Join(f.dir(tg), "releases/.*")); len(left) > 0 {
					t.Errorf("%s: staging left: %q", tg.User, left)
				}
			}
			// The same request again: nothing is uploaded or journaled.
			res, err = p.Deploy(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if got := outcomes(results(t, res)); !slices.Equal(got, repeat("kept", 3)) {
				t.Errorf("outcomes of the repeat %q, want kept", got)
			}
			act := f.request("d1", deploy.StepActivation, "1.0.0", deploy.KindRun)
			for range 2 {
				if _, err := p.Activate(ctx, act); err != nil {
					t.Fatal(err)
				}
			}
			f.wantCurrent("1.0.0")
			f.wantJournals("deploy 1.0.0", "activate 1.0.0")
			for _, tg := range f.targets {
				if link, _ := os.Readlink(filepath.Join(f.dir(tg), "current")); link != "releases/1.0.0" {
					t.Errorf("%s: current -> %q, want releases/1.0.0", tg.User, link)
				}
			}

			// A second version, by a new plugin (another worker).
			p = f.plugin()
			if _, err := p.Deploy(ctx, f.request("d2", deploy.StepDeploy, "2.0.0", deploy.KindRun)); err != nil {
				t.Fatal(err)
			}
			res, err = p.Activate(ctx, f.request("d2", deploy.StepActivation, "2.0.0", deploy.KindRun))
			if err != nil {
				t.Fatal(err)
			}
			if res.Outputs["previous_release"] != "1.0.0" || res.Outputs["current"] != "2.0.0" {
				t.Errorf("activation outputs %v, want current 2.0.0, previous_release 1.0.0", res.Outputs)
			}
			f.wantCurrent("2.0.0")
			f.wantJournals("deploy 1.0.0", "activate 1.0.0", "deploy 2.0.0", "activate 2.0.0")
		})
	}
}

func TestCheckpointAndRollback(t *testing.T) {
	f := newFleet(t, 1, 2)
	p := f.plugin()
	ctx := t.Context()
	for _, v := range []string{"1.0.0"} {
		if _, err := p.Deploy(ctx, f.request("d1", deploy.StepDeploy, v, deploy.KindRun)); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Activate(ctx, f.request("d1", deploy.StepActivation, v, deploy.KindRun)); err != nil {
			t.Fatal(err)
		}
	}
	cpDeploy, err := p.Checkpoint(ctx, f.request("d2", deploy.StepDeploy, "2.0.0", deploy.KindCheckpoint))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Deploy(ctx, f.request("d2", deploy.StepDeploy, "2.0.0", deploy.KindRun)); err != nil {
		t.Fatal(err)
	}
	cpAct, err := p.Checkpoint(ctx, f.request("d2", deploy.StepActivation, "2.0.0", deploy.KindCheckpoint))
	if err != nil {
		t.Fatal(err)
	}
	var saved map[string]targetCheckpoint
	if err := json.Unmarshal([]byte(cpAct.Data[checkpointTargets]), &saved); err != nil || len(saved) != 3 {
		t.Fatalf("activation checkpoint %v (%v), want the three targets", cpAct.Data, err)
	}
	for name, cp := range saved {
		if cp.Current != "1.0.0" {
			t.Errorf("checkpoint of %s: %+v, want 1.0.0 in service", name, cp)
		}
	}
	if _, err := p.Activate(ctx, f.request("d2", deploy.StepActivation, "2.0.0", deploy.KindRun)); err != nil {
		t.Fatal(err)
	}
	f.wantCurrent("2.0.0")

	// Removing a release in service is refused, and changes nothing.
	rbDeploy := f.request("d2", deploy.StepDeploy, "2.0.0", deploy.KindRollback)
	if _, err := p.Rollback(ctx, rbDeploy, cpDeploy); !deploy.IsPermanent(err) || !strings.Contains(err.Error(), "in service") {
		t.Fatalf("rollback of the deploy while in service: %v, want a permanent refusal", err)
	}
	f.wantCurrent("2.0.0")

	rbAct := f.request("d2", deploy.StepActivation, "2.0.0", deploy.KindRollback)
	for i := range 2 {
		res, err := p.Rollback(ctx, rbAct, cpAct)
		if err != nil {
			t.Fatal(err)
		}
		want := "rolled back"
		if i > 0 {
			want = "unchanged"
		}
		if got := outcomes(results(t, res)); !slices.Equal(got, repeat(want, 3)) {
			t.Errorf("rollback %d of the activation: %q, want %s", i+1, got, want)
		}
	}
	f.wantCurrent("1.0.0")
	for range 2 {
		if _, err := p.Rollback(ctx, rbDeploy, cpDeploy); err != nil {
			t.Fatal(err)
		}
	}
	for _, tg := range f.targets {
		if rs, _ := f.releases(tg); !slices.Equal(rs, []string{"1.0.0"}) {
			t.Errorf("%s: releases %q after the rollback, want only 1.0.0", tg.User, rs)
		}
	}
	f.wantJournals("deploy 1.0.0", "activate 1.0.0", "deploy 2.0.0", "activate 2.0.0", "rollback 2.0.0", "remove 2.0.0")

	// The deploy of a release that was already there is not undone.
	cpAgain, err := p.Checkpoint(ctx, f.request("d3", deploy.StepDeploy, "1.0.0", deploy.KindCheckpoint))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Rollback(ctx, f.request("d3", deploy.StepDeploy, "1.0.0", deploy.KindRollback), cpAgain); err != nil {
		t.Fatal(err)
	}
	f.wantCurrent("1.0.0")
}

func TestPrunePlan(t *testing.T) {
	at := func(i int) entry {
		return entry{version: "v" + string(rune('0'+i)), outcome: outcomeDeployed}
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := prunePlan(tt.entries, tt.inService, []string{tt.previous}, tt.succeeded, tt.keep)
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

func TestHostKeyRefusedBeforeAnyCommand(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(f *fleet)
		want  string
	}{
		{name: "changed", spoil: func(f *fleet) {
			for _, s := range f.servers {
				s.ChangeHostKey()
			}
		}, want: "has changed"},
		{name: "unknown", spoil: func(f *fleet) { f.writeKnownHosts("# nobody") }, want: "is not in known_hosts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t, 1, 2)
			tt.spoil(f)
			res, err := f.plugin().Deploy(t.Context(), f.request("d1", deploy.StepDeploy, "1.0.0", deploy.KindRun))
			if !deploy.IsPermanent(err) {
				t.Fatalf("deploy: %v, want a permanent error", err)
			}
			for _, s := range f.servers {
				fp := sshFingerprint(s)
				if !strings.Contains(err.Error(), "127.0.0.1:") || !strings.Contains(res.Outputs["results"], fp) {
					t.Errorf("error %q / results %s, want the host and the offered key %s", err, res.Outputs["results"], fp)
				}
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want %q", err, tt.want)
			}
			if got := outcomes(results(t, res)); !slices.Equal(got, repeat("failed", 3)) {
				t.Errorf("outcomes %q", got)
			}
			if n := f.execs(); n != 0 {
				t.Errorf("%d commands ran on hosts whose key was refused", n)
			}
		})
	}
}

func TestOneTargetFailingFailsTheStepWithEveryResult(t *testing.T) {
	f := newFleet(t, 1, 2)
	// The third login cannot create its directory: a file is in the way.
	bad := f.targets[2]
	if err := os.MkdirAll(filepath.Dir(f.dir(bad)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.dir(bad), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := f.plugin().Deploy(t.Context(), f.request("d1", deploy.StepDeploy, "1.0.0", deploy.KindRun))
	if err == nil || !deploy.IsPermanent(err) {
		t.Fatalf("deploy: %v, want a permanent failure", err)
	}
	rs := results(t, res)
	if got := outcomes(rs); !slices.Equal(got, []string{"unpacked", "unpacked", "failed"}) {
		t.Fatalf("outcomes %q", got)
	}
	r := rs[2]
	if r.Target != targetName(bad) || r.Command != "prepare" || r.ExitCode == nil || *r.ExitCode != 1 {
		t.Errorf("result of the failed target %+v, want its name, the command prepare and exit code 1", r)
	}
	for _, w := range []string{"1 of 3 targets failed", targetName(bad), `"prepare"`, "status 1"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q, want %q", err, w)
		}
	}
}

func TestDroppedConnectionIsTemporaryAndRetried(t *testing.T) {
	f := newFleet(t, 1)
	a := f.artifact("1.0.0")
	var once sync.Once
	// The connection drops as the unpack (the command that carries the
	// digest) starts, after the upload.
	f.servers[0].OnExec(func(_, command string) bool {
		drop := false
		if strings.Contains(command, a.sha256) {
			once.Do(func() { drop = true })
		}
		return drop
	})
	p := f.plugin()
	req := f.request("d1", deploy.StepDeploy, "1.0.0", deploy.KindRun)
	res, err := p.Deploy(t.Context(), req)
	if err == nil || deploy.IsPermanent(err) {
		t.Fatalf("deploy over a dropped connection: %v, want a temporary error", err)
	}
	if got := outcomes(results(t, res)); !slices.Equal(got, []string{"failed"}) {
		t.Errorf("outcomes %q", got)
	}
	// The step's retry.
	if _, err := p.Deploy(t.Context(), req); err != nil {
		t.Fatalf("retry: %v", err)
	}
	f.wantJournals("deploy 1.0.0")
	if rs, _ := f.releases(f.targets[0]); !slices.Equal(rs, []string{"1.0.0"}) {
		t.Errorf("releases %q", rs)
	}
}

func TestSessionsAndHostsAreBounded(t *testing.T) {
	tests := []struct {
		name     string
		logins   []int
		sessions int
		parallel int
		// wantPeak is the most sessions open at once over the servers.
		wantPeak int
	}{
		{name: "sessions per host", logins: []int{5}, sessions: 2, parallel: 10, wantPeak: 2},
		{name: "hosts at once", logins: []int{1, 1, 1, 1}, sessions: 4, parallel: 2, wantPeak: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t, tt.logins...)
			var mu sync.Mutex
			open, peak := 0, 0
			reached := make(chan struct{})
			release := make(chan struct{})
			var reachedOnce sync.Once
			for _, s := range f.servers {
				s.OnExec(func(_, _ string) bool {
					mu.Lock()
					open++
					peak = max(peak, open)
					if open >= tt.wantPeak {
						reachedOnce.Do(func() { close(reached) })
					}
					mu.Unlock()
					<-release
					mu.Lock()
					open--
					mu.Unlock()
					return false
				})
			}
			p := f.plugin(func(o *Options) { o.SSH.MaxSessionsPerHost, o.Parallel = tt.sessions, tt.parallel })
			done := make(chan error, 1)
			go func() {
				_, err := p.Deploy(t.Context(), f.request("d1", deploy.StepDeploy, "1.0.0", deploy.KindRun))
				done <- err
			}()
			defer func() {
				select {
				case <-release:
				default:
					close(release)
				}
			}()
			select {
			case <-reached:
			case <-time.After(2 * time.Minute):
				t.Fatalf("never %d commands at once", tt.wantPeak)
			case err := <-done:
				t.Fatalf("deploy ended before %d commands ran at once: %v", tt.wantPeak, err)
			}
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if peak != tt.wantPeak {
				t.Errorf("at most %d commands ran at once, want %d", peak, tt.wantPeak)
			}
			for _, s := range f.servers {
				if n := s.PeakSessions(); n > tt.sessions {
					t.Errorf("a host had %d sessions open at once, over %d", n, tt.sessions)
				}
			}
			f.wantJournals("deploy 1.0.0")
		})
	}
}

func TestHostileArtifactIsRefusedBeforeAnyCommand(t *testing.T) {
	tests := []struct {
		name string
		hdr  *tar.Header
	}{
		{name: "dot-dot", hdr: &tar.Header{Name: "../escape", Typeflag: tar.TypeReg, Mode: 0o644}},
		{name: "absolute", hdr: &tar.Header{Name: "/etc/cron.d/x", Typeflag: tar.TypeReg, Mode: 0o644}},
		{name: "link out", hdr: &tar.Header{Name: "www/out", Typeflag: tar.TypeSymlink, Linkname: "../../../etc"}},
		{name: "device", hdr: &tar.Header{Name: "dev", Typeflag: tar.TypeChar, Mode: 0o644}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t, 1)
			path := writeArchive(t, map[string]string{"VERSION": "1"}, tt.hdr)
			req := f.request("d1", deploy.StepDeploy, "1.0.0", deploy.KindRun)
			req.ArtifactPath, req.SHA256 = path, digest(t, path)
			if _, err := f.plugin().Deploy(t.Context(), req); !deploy.IsPermanent(err) {
				t.Fatalf("deploy: %v, want a permanent refusal", err)
			}
			if n := f.execs(); n != 0 {
				t.Errorf("%d commands ran for a refused artifact", n)
			}
		})
	}
}

func TestValidateTargets(t *testing.T) {
	good := deploy.Target{Host: "10.0.0.5", Port: 22, User: "deploy", Labels: map[string]string{"region": "eu"}}
	with := func(fn func(*deploy.Target)) []deploy.Target {
		t := good
		fn(&t)
		return []deploy.Target{t}
	}
	ok := map[string]string{"path": "apps/hello"}
	tests := []struct {
		name    string
		targets []deploy.Target
		params  map[string]string
		want    []string
	}{
		{name: "good", targets: []deploy.Target{good}, params: ok},
		{name: "names and addresses", params: map[string]string{"path": "/srv/hello", "keep_releases": "3"}, targets: []deploy.Target{
			{Host: "web1.example.com", User: "deploy"}, {Host: "::1", Port: 2222, User: "deploy"},
			{Host: "[2001:db8::1]", User: "deploy"}}},
		{name: "no host, no user", targets: []deploy.Target{{Port: 22}}, params: ok, want: []string{
			"targets[0].host: the ssh plugin needs the host to log in to",
			"targets[0].user: the ssh plugin needs the user to log in as"}},
		{name: "bad host", targets: with(func(t *deploy.Target) { t.Host = "web1;rm -rf ~" }), params: ok,
			want: []string{"targets[0].host: must be a host name, an IPv4 address or an IPv6 address"}},
		{name: "bad port", targets: with(func(t *deploy.Target) { t.Port = 70000 }), params: ok,
			want: []string{"targets[0].port: must be between 1 and 65535"}},
		{name: "bad user", targets: with(func(t *deploy.Target) { t.User = "-oProxyCommand=x" }), params: ok,
			want: []string{"targets[0].user: must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and -, not starting with - or ."}},
		{name: "path on a target", targets: with(func(t *deploy.Target) { t.Path = "/srv" }), params: ok,
			want: []string{"targets[0].path: the ssh plugin deploys to params.path on every target; remove path"}},
		{name: "bad label", targets: with(func(t *deploy.Target) { t.Labels = map[string]string{"Region": "eu"} }), params: ok,
			want: []string{"targets[0].labels: label keys must be 1 to 63 characters of a-z, 0-9, '.', '_', '/' and -, values without control characters"}},
		{name: "twice", targets: []deploy.Target{good, good}, params: ok, want: []string{"targets[1]: is targets[0] again (deploy@10.0.0.5:22)"}},
		{name: "no path", targets: []deploy.Target{good}, params: map[string]string{},
			want: []string{"params.path: the ssh plugin needs the directory to deploy to on the targets (relative to the login's home, or absolute)"}},
		{name: "dot-dot", targets: []deploy.Target{good}, params: map[string]string{"path": "apps/../../etc"},
			want: []string{"params.path: must not have a .. component"}},
		{name: "control", targets: []deploy.Target{good}, params: map[string]string{"path": "apps/\nhello"},
			want: []string{"params.path: must not contain control characters"}},
		{name: "option", targets: []deploy.Target{good}, params: map[string]string{"path": "-rf"},
			want: []string{"params.path: must not start with -"}},
		{name: "tilde", targets: []deploy.Target{good}, params: map[string]string{"path": "~root/x"},
			want: []string{"params.path: must not start with ~: a relative path is already relative to the login's home"}},
		{name: "keep zero", targets: []deploy.Target{good}, params: map[string]string{"path": "a", "keep_releases": "0"},
			want: []string{"params.keep_releases: must be a whole number from 1 to 1000"}},
		{name: "keep not a number", targets: []deploy.Target{good}, params: map[string]string{"path": "a", "keep_releases": "5; rm"},
			want: []string{"params.keep_releases: must be a whole number from 1 to 1000"}},
	}
	p := New(Options{})
	defer func() { _ = p.Close() }()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range p.ValidateTargets(tt.targets, tt.params) {
				got = append(got, e.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("errors\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

// A path with every character a shell cares about still names one
// directory: the scripts take it as a quoted argument.
func TestHostilePathStaysADirectory(t *testing.T) {
	f := newFleet(t, 1)
	f.path = `apps/it's $(touch pwned) "a b"; *`
	p := f.plugin()
	if _, err := p.Deploy(context.Background(), f.request("d1", deploy.StepDeploy, "1.0.0", deploy.KindRun)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Activate(context.Background(), f.request("d1", deploy.StepActivation, "1.0.0", deploy.KindRun)); err != nil {
		t.Fatal(err)
	}
	f.wantCurrent("1.0.0")
	home := f.users[f.targets[0].User].Home
	if _, err := os.Stat(filepath.Join(home, "pwned")); err == nil {
		t.Error("the path ran a command")
	}
}
