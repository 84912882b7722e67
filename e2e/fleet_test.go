package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// rolloutJSON is the rollout section of the status JSON, as these tests
// read it.
type rolloutJSON struct {
	State       string  `json:"state"`
	CurrentWave *string `json:"current_wave"`
	Waves       []struct {
		Name    string   `json:"name"`
		State   string   `json:"state"`
		Targets []string `json:"targets"`
		Batches []struct {
			Index      int      `json:"index"`
			Targets    []string `json:"targets"`
			State      string   `json:"state"`
			StartedAt  *string  `json:"started_at"`
			FinishedAt *string  `json:"finished_at"`
		} `json:"batches"`
		Bake *struct {
			Seconds int     `json:"seconds"`
			Until   *string `json:"until"`
		} `json:"bake"`
		Gate *struct {
			State  string `json:"state"`
			Checks []struct {
				Name   string   `json:"name"`
				State  string   `json:"state"`
				Value  *float64 `json:"value"`
				Detail string   `json:"detail"`
			} `json:"checks"`
		} `json:"gate"`
		Approval *struct {
			Status    string `json:"status"`
			Required  int    `json:"required"`
			Approvals []struct {
				Identity string `json:"identity"`
				Approved bool   `json:"approved"`
			} `json:"approvals"`
		} `json:"approval"`
	} `json:"waves"`
	Targets []struct {
		Name    string  `json:"name"`
		Outcome string  `json:"outcome"`
		Wave    string  `json:"wave"`
		Batch   int     `json:"batch"`
		State   string  `json:"state"`
		Release *string `json:"release"`
	} `json:"targets"`
}

// fleetStatus is the status JSON with its rollout.
type fleetStatus struct {
	deployStatus
	Rollout *rolloutJSON `json:"rollout"`
}

// The demo fleet's targets (examples/envconfig/demo/hello/fleet.yml), by
// wave, and the one under maintenance.
var (
	fleetWaves     = [][]string{{"eu-1"}, {"eu-2", "eu-3"}, {"us-1", "us-2", "us-3", "ap-1", "ap-2", "ap-3"}}
	fleetWaveNames = []string{"canary", "eu", "rest"}
	fleetExcluded  = "ap-4"
)

func fleetTarget(name string) string { return "../.manent/targets/hello/fleet/" + name }

// TestFleetDemo is the walk-through of docs/rollouts.md with the real
// binaries in dev mode: examples/deploys/fleet.yml, deployed by demo-ci,
// rolls hello 1.0.0 out over the demo's fleet in three waves and waits
// before the last for an approval, which demo-ci, the requester, may not
// give and demo-admin gives; then SUCCESS, ap-4 untouched. Then
// examples/deploys/fleet-broken.yml passes the canary's gate, fails the eu
// wave's, and rolls the eu wave then the canary back to 1.0.0, the rest
// wave never touched nor its approval asked.
func TestFleetDemo(t *testing.T) {
	serverBin, cliBin := binaries(t)
	dir := t.TempDir()
	copyTree(t, filepath.Join(repoRoot(), "examples"), filepath.Join(dir, "examples"))
	port := freePort(t)
	// The fleet's gate names the demo's address: this one's port.
	envFile := filepath.Join(dir, "examples/envconfig/demo/hello/fleet.yml")
	b, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	write(t, envFile, strings.ReplaceAll(string(b), "127.0.0.1:8080", fmt.Sprintf("127.0.0.1:%d", port)))
	url := startDev(t, serverBin, dir, port)
	targetDir := func(name string) string { return filepath.Join(dir, ".manent/targets/hello/fleet", name) }

	deployFile := func(name string) (fleetStatus, int) {
		t.Helper()
		stdout, stderr, code := cli(t, cliBin, url, "demo-ci", "deploy", "-f", filepath.Join(dir, "examples/deploys", name), "-o", "json", "--timeout", "2m")
		var st fleetStatus
		if err := json.Unmarshal([]byte(stdout), &st); err != nil {
			t.Fatalf("deploy %s: exit %d, status JSON: %v\nstdout:\n%s\nstderr:\n%s", name, code, err, stdout, stderr)
		}
		if st.Rollout == nil {
			t.Fatalf("deploy %s: no rollout in the status:\n%s", name, stdout)
		}
		return st, code
	}

	// The good release, followed as the walk-through does, waits before its
	// last wave for another identity's approval.
	deploying := deployBackground(cliBin, url, "demo-ci", "deploy", "-f", filepath.Join(dir, "examples/deploys/fleet.yml"), "-o", "json", "--timeout", "2m")
	t.Cleanup(deploying.stop)
	id := deploying.waitID(t)
	waiting := waitFleet(t, url, id, "awaiting the approval of wave rest", func(st fleetStatus) bool {
		return st.Rollout != nil && st.Rollout.State == "awaiting_approval"
	})
	if waiting.State != "PENDING" || deref(waiting.Rollout.CurrentWave) != "rest" {
		t.Fatalf("awaiting approval: deploy %s, current wave %s, want PENDING before rest", waiting.State, deref(waiting.Rollout.CurrentWave))
	}
	checkFleetWaves(t, waiting.Rollout, []string{"passed", "passed", "awaiting_approval"}, "")
	if a := waiting.Rollout.Waves[2].Approval; a == nil || a.Status != "waiting" || a.Required != 1 || len(a.Approvals) != 0 {
		t.Errorf("approval of wave rest %+v, want waiting for 1, none given", a)
	}
	for _, n := range fleetWaves[2] {
		if _, err := os.Stat(targetDir(n)); !os.IsNotExist(err) {
			t.Errorf("%s, of the rest wave, was touched before the approval: %v", n, err)
		}
	}
	// The pending wave is in demo-admin's inbox.
	if out, errOut, code := cli(t, cliBin, url, "demo-admin", "approvals", "-o", "json"); code != 0 || !strings.Contains(out, `"`+id+`"`) {
		t.Errorf("manent approvals as demo-admin: exit %d, %s%s, want %s listed", code, out, errOut, id)
	}
	// The requester may never approve a wave of its own deploy.
	if out, errOut, code := cli(t, cliBin, url, "demo-ci", "approve", id); code != 3 || !strings.Contains(errOut, "permission denied") {
		t.Errorf("manent approve as the requester demo-ci: exit %d, %s%s, want 3 and permission denied", code, out, errOut)
	}
	if st := fleetStatusOf(t, url, id); st.Rollout == nil || st.Rollout.State != "awaiting_approval" {
		t.Fatalf("after the refused approval: %+v, want still awaiting approval", st.Rollout)
	}
	out, errOut, code := cli(t, cliBin, url, "demo-admin", "approve", id, "--comment", "canary and eu look fine")
	// The answer shows the wave as the server had it: still waiting for the
	// rollout to see the approval, or already past it.
	if code != 0 || !strings.Contains(out, "approved wave rest; 1 of 1") && !strings.Contains(out, "approved the pending wave") {
		t.Fatalf("manent approve as demo-admin: exit %d\n%s%s", code, out, errOut)
	}
	good, code := deploying.wait(t)
	if code != 0 || good.State != "SUCCESS" {
		t.Fatalf("fleet.yml: exit %d, state %s, error %s", code, good.State, good.errorText())
	}
	if a := good.Rollout.Waves[2].Approval; a == nil || a.Status != "approved" || len(a.Approvals) != 1 ||
		a.Approvals[0].Identity != "token:demo-admin" || !a.Approvals[0].Approved {
		t.Errorf("approval of wave rest %+v, want approved by token:demo-admin", a)
	}
	ro := good.Rollout
	if ro.State != "completed" || ro.CurrentWave != nil {
		t.Errorf("rollout state %s, current wave %v, want completed and none", ro.State, ro.CurrentWave)
	}
	checkFleetWaves(t, ro, []string{"passed", "passed", "passed"}, "pass")
	for _, names := range fleetWaves {
		for _, n := range names {
			if cur := currentLink(t, targetDir(n)); cur != "releases/1.0.0" {
				t.Errorf("%s: current -> %q, want releases/1.0.0", n, cur)
			}
		}
	}
	checkFleetTargets(t, ro, func(wave int) (string, string) { return "SUCCESS", "1.0.0" })
	if _, err := os.Stat(targetDir(fleetExcluded)); !os.IsNotExist(err) {
		t.Errorf("%s, under maintenance, was touched: %v", fleetExcluded, err)
	}

	broken, code := deployFile("fleet-broken.yml")
	if code != 1 || broken.State != "ERROR" {
		t.Fatalf("fleet-broken.yml: exit %d, state %s, error %s", code, broken.State, broken.errorText())
	}
	if !strings.Contains(broken.errorText(), "wave eu failed its gates") {
		t.Errorf("error %q, want the eu wave's gates", broken.errorText())
	}
	t.Logf("fleet-broken.yml: %s", broken.errorText())
	ro = broken.Rollout
	if ro.State != "aborted" {
		t.Errorf("rollout state %s, want aborted", ro.State)
	}
	checkFleetWaves(t, ro, []string{"rolled_back", "rolled_back", "skipped"}, "")
	// The eu wave failed: the approval of the rest wave was never asked.
	if a := ro.Waves[2].Approval; a == nil || a.Status != "pending" || len(a.Approvals) != 0 {
		t.Errorf("approval of wave rest %+v, want pending: never asked", a)
	}
	if g := ro.Waves[0].Gate; g == nil || g.State != "pass" {
		t.Errorf("canary gate %+v, want pass: the fleet absorbs one broken target", g)
	}
	if g := ro.Waves[1].Gate; g == nil || g.State != "fail" {
		t.Errorf("eu gate %+v, want fail", g)
	}
	if broken.Rollback == nil || broken.Rollback.State != "completed" {
		t.Fatalf("rollback %+v, want completed", broken.Rollback)
	}
	var order []string
	for _, s := range broken.Rollback.Steps {
		if s.State != "SUCCESS" {
			t.Errorf("rollback step %s: %s", s.Name, s.State)
		}
		order = append(order, s.Name)
	}
	// The eu wave's batch first, then the canary's: each batch's steps in
	// reverse.
	if want := []string{"rollback:activation[2/1]", "rollback:deploy[2/1]", "rollback:activation[1/1]", "rollback:deploy[1/1]"}; !slices.Equal(order, want) {
		t.Errorf("rollback steps %v, want %v", order, want)
	}
	// A rolled-back target shows the release it was brought back to, as
	// the targets' current links below say.
	checkFleetTargets(t, ro, func(wave int) (string, string) {
		if wave < 2 {
			return "ROLLED_BACK", "1.0.0"
		}
		return "SKIPPED", ""
	})
	for w, names := range fleetWaves {
		for _, n := range names {
			if cur := currentLink(t, targetDir(n)); cur != "releases/1.0.0" {
				t.Errorf("%s: current -> %q, want releases/1.0.0", n, cur)
			}
			j := journalLines(t, targetDir(n))
			if w == 2 && slices.ContainsFunc(j, func(l string) bool { return strings.HasSuffix(l, "1.1.0") }) {
				t.Errorf("%s, of the rest wave, was touched: %v", n, j)
			}
			if w < 2 {
				if want := []string{"deploy 1.0.0", "activate 1.0.0", "deploy 1.1.0", "activate 1.1.0", "rollback 1.1.0", "remove 1.1.0"}; !slices.Equal(j, want) {
					t.Errorf("%s: journal %v, want %v", n, j, want)
				}
			}
		}
	}
	// The targets' own journals tell the same order: the eu wave was
	// brought back before the canary.
	canary := journalTime(t, targetDir("eu-1"), "rollback")
	for _, n := range fleetWaves[1] {
		if at := journalTime(t, targetDir(n), "rollback"); !at.Before(canary) {
			t.Errorf("%s rolled back at %s, not before the canary (%s)", n, at, canary)
		}
	}
	if _, err := os.Stat(targetDir(fleetExcluded)); !os.IsNotExist(err) {
		t.Errorf("%s, under maintenance, was touched: %v", fleetExcluded, err)
	}
}

// checkFleetWaves holds the waves of the demo's rollout to their names,
// targets and states, and every gate that ran to gate ("" to skip).
func checkFleetWaves(t *testing.T, ro *rolloutJSON, states []string, gate string) {
	t.Helper()
	if len(ro.Waves) != len(fleetWaveNames) {
		t.Fatalf("%d waves, want %d", len(ro.Waves), len(fleetWaveNames))
	}
	for i, w := range ro.Waves {
		var want []string
		for _, n := range fleetWaves[i] {
			want = append(want, fleetTarget(n))
		}
		if w.Name != fleetWaveNames[i] || w.State != states[i] || !slices.Equal(w.Targets, want) {
			t.Errorf("wave %d: %s %s %v, want %s %s %v", i+1, w.Name, w.State, w.Targets, fleetWaveNames[i], states[i], want)
		}
		if gate != "" && (w.Gate == nil || w.Gate.State != gate) {
			t.Errorf("wave %s: gate %+v, want %s", w.Name, w.Gate, gate)
		}
	}
}

// checkFleetTargets holds every target of the status to its outcome, wave
// and batch, and a targeted one to the state and release stateOf gives
// for its wave (0-based; "" leaves the release out); the excluded one is
// SKIPPED without release.
func checkFleetTargets(t *testing.T, ro *rolloutJSON, stateOf func(wave int) (string, string)) {
	t.Helper()
	byName := map[string]int{}
	for i, tg := range ro.Targets {
		byName[tg.Name] = i
	}
	if len(ro.Targets) != 10 {
		t.Errorf("%d targets in the status, want 10", len(ro.Targets))
	}
	for w, names := range fleetWaves {
		for i, n := range names {
			k, ok := byName[fleetTarget(n)]
			if !ok {
				t.Errorf("%s: not in the status", n)
				continue
			}
			tg := ro.Targets[k]
			state, release := stateOf(w)
			batch := 1
			if w == 2 {
				batch = i/3 + 1
			}
			if tg.Outcome != "targeted" || tg.Wave != fleetWaveNames[w] || tg.Batch != batch || tg.State != state ||
				(release != "" && deref(tg.Release) != release) {
				t.Errorf("%s: %+v (release %v), want targeted in %s batch %d, %s on %s", n, tg, deref(tg.Release), fleetWaveNames[w], batch, state, release)
			}
		}
	}
	if k, ok := byName[fleetTarget(fleetExcluded)]; !ok {
		t.Errorf("%s: not in the status", fleetExcluded)
	} else if tg := ro.Targets[k]; tg.Outcome != "excluded" || tg.Wave != "" || tg.State != "SKIPPED" || tg.Release != nil {
		t.Errorf("%s: %+v, want excluded, SKIPPED, no release", fleetExcluded, tg)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// journalTime is when the last op of a target's journal was written.
func journalTime(t *testing.T, target, op string) time.Time {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(target, ".manent/journal"))
	if err != nil {
		t.Fatal(err)
	}
	var at time.Time
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		// time, operation, deploy, target, version
		if f := strings.Fields(line); len(f) == 5 && f[1] == op {
			if at, err = time.Parse(time.RFC3339Nano, f[0]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if at.IsZero() {
		t.Fatalf("%s: no %s in the journal", target, op)
	}
	return at
}

// followedDeploy is `manent deploy` following a deploy while the test goes
// on, as a person's terminal does while another approves.
type followedDeploy struct {
	cmd      *exec.Cmd
	stdout   bytes.Buffer
	mu       sync.Mutex
	stderr   bytes.Buffer
	id       chan string
	done     chan struct{}
	code     int
	startErr error
}

// deployBackground starts the CLI with the given arguments; its ID comes
// from the line it writes on stderr once the deploy is submitted.
func deployBackground(bin, serverURL, token string, args ...string) *followedDeploy {
	f := &followedDeploy{id: make(chan string, 1), done: make(chan struct{})}
	f.cmd = exec.Command(bin, args...)
	f.cmd.Env = append(os.Environ(), "MANENT_SERVER="+serverURL, "MANENT_TOKEN="+token)
	f.cmd.Stdout = &f.stdout
	pr, pw := io.Pipe()
	f.cmd.Stderr = pw
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			f.mu.Lock()
			f.stderr.WriteString(line + "\n")
			f.mu.Unlock()
			if rest, ok := strings.CutPrefix(line, "submitted deployment "); ok {
				select {
				case f.id <- strings.Fields(rest)[0]:
				default:
				}
			}
		}
	}()
	if f.startErr = f.cmd.Start(); f.startErr != nil {
		_ = pw.Close()
		close(f.done)
		return f
	}
	go func() {
		_ = f.cmd.Wait()
		f.code = f.cmd.ProcessState.ExitCode()
		_ = pw.Close()
		close(f.done)
	}()
	return f
}

func (f *followedDeploy) stderrText() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stderr.String()
}

// waitID is the ID of the deploy, once submitted.
func (f *followedDeploy) waitID(t *testing.T) string {
	t.Helper()
	if f.startErr != nil {
		t.Fatal(f.startErr)
	}
	select {
	case id := <-f.id:
		return id
	case <-f.done:
		t.Fatalf("manent deploy exited %d before it submitted:\n%s%s", f.code, f.stdout.String(), f.stderrText())
	case <-time.After(2 * time.Minute):
		t.Fatalf("manent deploy submitted nothing in 2 minutes:\n%s", f.stderrText())
	}
	return ""
}

// wait is the final status JSON the command printed, and its exit code.
func (f *followedDeploy) wait(t *testing.T) (fleetStatus, int) {
	t.Helper()
	select {
	case <-f.done:
	case <-time.After(3 * time.Minute):
		t.Fatalf("manent deploy still following after 3 minutes:\n%s", f.stderrText())
	}
	var st fleetStatus
	if err := json.Unmarshal(f.stdout.Bytes(), &st); err != nil || st.Rollout == nil {
		t.Fatalf("manent deploy: exit %d, status JSON with its rollout: %v\nstdout:\n%s\nstderr:\n%s", f.code, err, f.stdout.String(), f.stderrText())
	}
	return st, f.code
}

// stop kills the command if it still runs.
func (f *followedDeploy) stop() {
	select {
	case <-f.done:
	default:
		_ = f.cmd.Process.Kill()
		<-f.done
	}
}

// fleetStatusOf is the status JSON of a deploy, as demo-admin reads it
// from GET /api/v1/deployments/{id}.
func fleetStatusOf(t *testing.T, serverURL, id string) fleetStatus {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, serverURL+"/api/v1/deployments/"+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer demo-admin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET status of %s: %v", id, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET status of %s: %d %v %s", id, resp.StatusCode, err, body)
	}
	var st fleetStatus
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("status JSON of %s: %v\n%s", id, err, body)
	}
	return st
}

// waitFleet reads the status of a deploy of the demo server at each of its
// events until ok holds, and returns that status.
func waitFleet(t *testing.T, serverURL, id, what string, ok func(fleetStatus) bool) fleetStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var st fleetStatus
	for range deploymentEvents(ctx, t, serverURL, "demo-admin", id) {
		if st = fleetStatusOf(t, serverURL, id); ok(st) {
			return st
		}
		if terminal(st.State) {
			break
		}
	}
	t.Fatalf("deploy %s: never %s (last seen %s, rollout %+v)", id, what, st.State, st.Rollout)
	return fleetStatus{}
}
