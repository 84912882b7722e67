package ssh

import (
	"archive/tar"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

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
	// The target is named once, by the step: not again by the SSH layer.
	if n := strings.Count(err.Error(), endpoint(bad).Addr()); n != 1 {
		t.Errorf("error %q names %s %d times, want once", err, endpoint(bad).Addr(), n)
	}
	if n := strings.Count(r.Error, endpoint(bad).Addr()); n != 0 {
		t.Errorf("result's error %q repeats the address of its target", r.Error)
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

// holder holds every command the servers of a fleet receive until it is
// released, and counts those running and the targets queued for a place.
type holder struct {
	mu      sync.Mutex
	open    int
	peak    int
	queued  int
	changed chan struct{}
	release chan struct{}
}

func newHolder(t *testing.T, f *fleet) *holder {
	h := &holder{changed: make(chan struct{}, 1), release: make(chan struct{})}
	t.Cleanup(h.free)
	for _, s := range f.servers {
		s.OnExec(func(_, _ string) bool {
			h.update(func() { h.open++; h.peak = max(h.peak, h.open) })
			<-h.release
			h.update(func() { h.open-- })
			return false
		})
	}
	return h
}

func (h *holder) update(fn func()) {
	h.mu.Lock()
	fn()
	h.mu.Unlock()
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

func (h *holder) free() {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.release:
	default:
		close(h.release)
	}
}

// until waits for cond (under the lock), or for the deploy to end.
func (h *holder) until(t *testing.T, done <-chan error, cond func() bool) {
	t.Helper()
	for {
		h.mu.Lock()
		ok := cond()
		h.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-h.changed:
		case err := <-done:
			t.Fatalf("the deploy ended first: %v", err)
		}
	}
}

func deployInBackground(t *testing.T, f *fleet, p *Plugin) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := p.Deploy(t.Context(), f.request("d1", deploy.StepDeploy, "1.0.0", deploy.KindRun))
		done <- err
	}()
	return done
}

func TestTargetsRunAtMostParallelAtOnce(t *testing.T) {
	const parallel = 2
	f := newFleet(t, 1, 1, 1, 1)
	h := newHolder(t, f)
	p := f.plugin(func(o *Options) { o.Parallel = parallel })
	p.queued = func(string) { h.update(func() { h.queued++ }) }
	done := deployInBackground(t, f, p)
	// The first two targets run a command each and the other two wait for
	// their place; a third command running first is over the bound.
	h.until(t, done, func() bool { return h.peak > parallel || (h.open == parallel && h.queued == 2) })
	h.mu.Lock()
	peak := h.peak
	h.mu.Unlock()
	if peak != parallel {
		t.Errorf("%d targets ran commands at once, want %d", peak, parallel)
	}
	h.free()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	f.wantJournals("deploy 1.0.0")
}

func TestSessionsPerHostAreBounded(t *testing.T) {
	const sessions = 2
	f := newFleet(t, 5)
	h := newHolder(t, f)
	p := f.plugin(func(o *Options) { o.SSH.MaxSessionsPerHost = sessions })
	done := deployInBackground(t, f, p)
	h.until(t, done, func() bool { return h.open >= sessions })
	h.free()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := f.servers[0].PeakSessions(); n != sessions {
		t.Errorf("the host had at most %d sessions open at once, want %d", n, sessions)
	}
	f.wantJournals("deploy 1.0.0")
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
		{name: "IPv6 zone", targets: with(func(t *deploy.Target) { t.Host = "fe80::1%eth0" }), params: ok,
			want: []string{"targets[0].host: must be a host name, an IPv4 address or an IPv6 address"}},
		{name: "IPv6 zone in brackets", targets: with(func(t *deploy.Target) { t.Host = "[fe80::1%eth0]" }), params: ok,
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

// With plugins.ssh.insecure_ignore_host_key, every step says in its log
// that the host key is not checked, not only the step that dialled.
func TestInsecureConnectionWarnsInEveryStep(t *testing.T) {
	f := newFleet(t, 1)
	f.writeKnownHosts("# nobody")
	p := f.plugin(func(o *Options) { o.SSH.InsecureIgnoreHostKey = true })
	for _, step := range []string{deploy.StepDeploy, deploy.StepActivation} {
		var warned int
		req := f.request("d1", step, "1.0.0", deploy.KindRun)
		req.Log = func(format string, args ...any) {
			if strings.Contains(fmt.Sprintf(format, args...), "is not checked") {
				warned++
			}
		}
		run := p.Deploy
		if step == deploy.StepActivation {
			run = p.Activate
		}
		if _, err := run(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		if warned != 1 {
			t.Errorf("%s: %d warnings that the host key is not checked, want 1", step, warned)
		}
	}
	if n := f.servers[0].Connections(); n != 1 {
		t.Errorf("%d connections, want 1 shared by the steps", n)
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
