package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/gates"
	"manent.dev/manent/internal/pgtest"
)

// prometheusBin is where Debian's prometheus package puts the server
// (make prometheus installs it).
const prometheusBin = "/usr/bin/prometheus"

// TestPrometheusGate checks the Prometheus gate against a real Prometheus
// scraping an exporter the test serves on loopback: a value within bounds
// passes, the same series out of bounds fails once Prometheus scraped the
// change, a series no one exports and a NaN have no data, several series
// are each held to the bounds, and a query Prometheus refuses or one that
// gives a range vector is inconclusive.
func TestPrometheusGate(t *testing.T) {
	requirePrometheus(t)
	exp := newExporter(t)
	exp.set("web-1", "0.001")
	exp.set("web-2", "0.004")
	prom := startPrometheus(t, exp.addr())
	prom.waitTargetUp(t)

	maxRatio := 0.01
	check := func(query string) gates.Result {
		t.Helper()
		return gates.Check(context.Background(), deploy.GateSpec{Name: "errors", Prometheus: &deploy.PrometheusGate{
			URL: prom.url(), Query: query, Max: &maxRatio, Timeout: 10 * time.Second,
		}}, gates.WaveInput{})
	}
	expect := func(r gates.Result, state deploy.GateResult, value float64, detail string) {
		t.Helper()
		if r.State != state || !strings.Contains(r.Detail, detail) {
			t.Fatalf("%s: %s, want %s with %q", r.State, r.Detail, state, detail)
		}
		switch {
		case math.IsNaN(value) && r.Value != nil:
			t.Fatalf("value %s, want none", r.ValueText())
		case !math.IsNaN(value) && (r.Value == nil || *r.Value != value):
			t.Fatalf("value %s, want %v", r.ValueText(), value)
		}
	}
	web1 := `gate_error_ratio{target="web-1"}`

	prom.waitValue(t, web1, "0.001")
	expect(check(web1), deploy.GatePass, 0.001, "0.001")
	expect(check("gate_error_ratio"), deploy.GatePass, 0.004, "worst of 2 series")

	exp.set("web-1", "0.25")
	prom.waitValue(t, web1, "0.25")
	expect(check(web1), deploy.GateFail, 0.25, "is above max 0.01")
	expect(check("gate_error_ratio"), deploy.GateFail, 0.25, `target="web-1"`)
	expect(check("max(gate_error_ratio)"), deploy.GateFail, 0.25, "0.25 is above max 0.01")

	expect(check(`gate_error_ratio{target="web-9"}`), deploy.GateNoData, math.NaN(), "no series")
	exp.set("web-2", "NaN")
	prom.waitValue(t, `gate_error_ratio{target="web-2"}`, "NaN")
	expect(check(`gate_error_ratio{target="web-2"}`), deploy.GateNoData, math.NaN(), "NaN")

	expect(check("sum(gate_error_ratio"), deploy.GateInconclusive, math.NaN(), "query refused: bad_data")
	expect(check("gate_error_ratio[1m]"), deploy.GateInconclusive, math.NaN(), "range vector")
}

// allowSkipPrometheus lets the Prometheus tests skip where the binary is
// missing; without it their absence fails, as sshd's does, so CI can never
// pass without running them.
const allowSkipPrometheus = "MANENT_E2E_ALLOW_SKIP_PROMETHEUS"

// requirePrometheus fails t when Prometheus is missing (make test installs
// it as root), unless allowSkipPrometheus is 1.
func requirePrometheus(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(prometheusBin); err == nil {
		return
	}
	if os.Getenv(allowSkipPrometheus) == "1" {
		t.Skipf("skipped (%s=1): %s is missing", allowSkipPrometheus, prometheusBin)
	}
	t.Fatalf("%s is missing: run make prometheus as root (make test does), which installs Debian's prometheus package, "+
		"or set %s=1 to skip the tests that need it", prometheusBin, allowSkipPrometheus)
}

// exporter serves a gauge per target in Prometheus's text format.
type exporter struct {
	srv    *httptest.Server
	mu     sync.Mutex
	values map[string]string
}

func newExporter(t *testing.T) *exporter {
	e := &exporter{values: map[string]string{}}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		e.mu.Lock()
		defer e.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		var b bytes.Buffer
		b.WriteString("# HELP gate_error_ratio The share of failed requests.\n# TYPE gate_error_ratio gauge\n")
		for target, v := range e.values {
			fmt.Fprintf(&b, "gate_error_ratio{target=%q} %s\n", target, v)
		}
		_, _ = w.Write(b.Bytes())
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *exporter) set(target, value string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.values[target] = value
}

func (e *exporter) addr() string { return strings.TrimPrefix(e.srv.URL, "http://") }

// prometheus is a Prometheus process of the test's own: a temporary
// configuration and data directory, a loopback port, a scrape a second.
type prometheus struct {
	port   int
	cmd    *exec.Cmd
	log    *bytes.Buffer
	mu     *sync.Mutex
	exited chan struct{}
	// user and password, when set, are the basic authentication every
	// request of the test's own sends (Prometheus asks it of all).
	user, password string
}

func startPrometheus(t *testing.T, target string) *prometheus {
	t.Helper()
	return startPrometheusAs(t, target, "", "")
}

// startPrometheusAs starts a Prometheus whose every endpoint asks basic
// authentication of user (none when user is ""), with password.
func startPrometheusAs(t *testing.T, target, user, password string) *prometheus {
	t.Helper()
	dir := t.TempDir()
	var web []string
	if user != "" {
		hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		webFile := filepath.Join(dir, "web.yml")
		if err := os.WriteFile(webFile, fmt.Appendf(nil, "basic_auth_users:\n  %s: %q\n", user, hash), 0o644); err != nil {
			t.Fatal(err)
		}
		web = []string{"--web.config.file=" + webFile}
	}
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: gate
    static_configs:
      - targets: [%q]
`, target)
	configFile := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(configFile, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	// A port found free may be taken before Prometheus listens on it: a
	// start that fails so is tried again on another.
	var last string
	for range 3 {
		p := &prometheus{port: freePort(t), log: &bytes.Buffer{}, mu: &sync.Mutex{}, exited: make(chan struct{}),
			user: user, password: password}
		p.cmd = exec.Command(prometheusBin, append([]string{
			"--config.file=" + configFile,
			"--storage.tsdb.path=" + filepath.Join(dir, "data"),
			"--web.listen-address=" + fmt.Sprintf("127.0.0.1:%d", p.port),
			"--log.level=warn"}, web...)...)
		// Never left behind by a test binary that dies.
		p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		w := lockedWriter{p.mu, p.log}
		p.cmd.Stdout, p.cmd.Stderr = w, w
		if err := p.cmd.Start(); err != nil {
			t.Fatalf("start %s: %v", prometheusBin, err)
		}
		go func() { _ = p.cmd.Wait(); close(p.exited) }()
		t.Cleanup(p.stop)
		if p.waitReady(t) {
			return p
		}
		last = p.output()
	}
	t.Fatalf("prometheus did not start:\n%s", last)
	return nil
}

func (p *prometheus) url() string { return fmt.Sprintf("http://127.0.0.1:%d", p.port) }

func (p *prometheus) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

func (p *prometheus) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// waitReady waits for /-/ready, false when the process exited first.
func (p *prometheus) waitReady(t *testing.T) bool {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		select {
		case <-p.exited:
			return false
		default:
		}
		if resp, err := p.do(p.url() + "/-/ready"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready after 90s:\n%s", p.output())
		}
		time.Sleep(50 * time.Millisecond) // polling a port that is not open yet: nothing to wait on
	}
}

// poll asks until done says so, within a bounded time: Prometheus has no
// event to wait on but its own answers.
func (p *prometheus) poll(t *testing.T, what string, done func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ok, seen := done()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60s, still waiting for %s (last seen: %s)\n%s", what, seen, p.output())
		}
		time.Sleep(100 * time.Millisecond) // the next scrape is the event; Prometheus only tells by being asked
	}
}

// waitTargetUp waits until Prometheus's one target was scraped and is up.
func (p *prometheus) waitTargetUp(t *testing.T) {
	t.Helper()
	p.poll(t, "the exporter to be up", func() (bool, string) {
		var a struct {
			Data struct {
				ActiveTargets []struct {
					Health    string `json:"health"`
					LastError string `json:"lastError"`
				} `json:"activeTargets"`
			} `json:"data"`
		}
		if err := p.get("/api/v1/targets", nil, &a); err != nil {
			return false, err.Error()
		}
		if len(a.Data.ActiveTargets) == 0 {
			return false, "no target yet"
		}
		tg := a.Data.ActiveTargets[0]
		return tg.Health == "up", tg.Health + " " + tg.LastError
	})
}

// waitValue waits until the instant query gives one sample of value.
func (p *prometheus) waitValue(t *testing.T, query, value string) {
	t.Helper()
	p.poll(t, query+" = "+value, func() (bool, string) {
		var a struct {
			Data struct {
				Result []struct {
					Value []any `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		if err := p.get("/api/v1/query", url.Values{"query": {query}}, &a); err != nil {
			return false, err.Error()
		}
		if len(a.Data.Result) != 1 || len(a.Data.Result[0].Value) != 2 {
			return false, strconv.Itoa(len(a.Data.Result)) + " series"
		}
		got, _ := a.Data.Result[0].Value[1].(string)
		return got == value, got
	})
}

func (p *prometheus) get(path string, q url.Values, into any) error {
	u := p.url() + path
	if q != nil {
		u += "?" + q.Encode()
	}
	resp, err := p.do(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", path, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(into)
}

// do GETs u with p's credentials.
func (p *prometheus) do(u string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if p.user != "" {
		req.SetBasicAuth(p.user, p.password)
	}
	return http.DefaultClient.Do(req)
}

// TestPrometheusGateThroughServer: a deploy whose rollout is gated by a
// real Prometheus, through manent-server: with the exporter's gauge within
// bounds every wave passes its gate (with the value seen) and the deploy
// succeeds; with the gauge out of bounds the first wave fails its gate and
// its batch is rolled back, the second wave never touched.
func TestPrometheusGateThroughServer(t *testing.T) {
	requirePrometheus(t)
	exp := newExporter(t)
	exp.set("t1", "0.001")
	prom := startPrometheus(t, exp.addr())
	prom.waitTargetUp(t)
	query := `max(gate_error_ratio)`
	prom.waitValue(t, query, "0.001")

	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy", "activation"}, maxRecovery: 3})
	r.srv.start()
	r.artifact("1.0.0")
	r.artifact("1.1.0")
	gate := fmt.Sprintf(`{name: errors, prometheus: {url: %q, query: %q, max: 0.01}}`, prom.url(), query)
	r.env("prod", rolloutEnv(3, "0s", gate))

	good := r.followToEnd(r.submit(r.descriptor("prom-good", "prod", "1.0.0", "")))
	if good.State != "SUCCESS" {
		t.Fatalf("deploy within bounds: %s, %s", good.State, good.errorText())
	}
	for _, w := range r.rolloutStatus(good.ID).Rollout.Waves {
		if w.State != "passed" || w.Gate == nil || w.Gate.State != "pass" || len(w.Gate.Checks) != 1 ||
			w.Gate.Checks[0].Value == nil || *w.Gate.Checks[0].Value != 0.001 {
			t.Errorf("wave %s: %s, gate %+v, want passed with 0.001", w.Name, w.State, w.Gate)
		}
	}

	exp.set("t1", "0.25")
	prom.waitValue(t, query, "0.25")
	bad := r.followToEnd(r.submit(r.descriptor("prom-bad", "prod", "1.1.0", "")))
	if bad.State != "ERROR" || !strings.Contains(bad.errorText(), "wave first failed its gates") {
		t.Fatalf("deploy out of bounds: %s, %q, want ERROR on the first wave's gates", bad.State, bad.errorText())
	}
	ro := r.rolloutStatus(bad.ID).Rollout
	if w := ro.Waves[0]; w.State != "rolled_back" || w.Gate == nil || w.Gate.State != "fail" ||
		w.Gate.Checks[0].Value == nil || *w.Gate.Checks[0].Value != 0.25 ||
		!strings.Contains(w.Gate.Checks[0].Detail, "is above max 0.01") {
		t.Errorf("first wave %s, gate %+v, want rolled back after a fail at 0.25", w.State, w.Gate)
	}
	if w := ro.Waves[1]; w.State != "skipped" || len(w.Batches) != 2 || w.Batches[0].StartedAt != nil {
		t.Errorf("second wave %s %+v, want skipped, never started", w.State, w.Batches)
	}
	if bad.Rollback == nil || bad.Rollback.State != "completed" {
		t.Fatalf("rollback %+v, want completed", bad.Rollback)
	}
	if cur := currentLink(t, r.target("targets/t1")); cur != "releases/1.0.0" {
		t.Errorf("t1: current -> %q, want releases/1.0.0", cur)
	}
	for _, n := range []string{"t2", "t3"} {
		if j := journalLines(t, r.target("targets/"+n)); !slices.Equal(j, []string{"deploy 1.0.0", "activate 1.0.0"}) {
			t.Errorf("%s: journal %v: the second wave was touched", n, j)
		}
	}
}

// TestPrometheusGateBasicAuthThroughServer: a real Prometheus that asks
// basic authentication of every request, and a deploy whose gate gives
// basic_auth with the secret of its environment configuration that holds
// the password: without the password Prometheus refuses the query (the
// check is inconclusive); through manent-server the worker resolves the
// secret when it checks the gate, every wave passes with the value seen,
// and neither the effective deploy stored nor the status holds the
// password.
func TestPrometheusGateBasicAuthThroughServer(t *testing.T) {
	requirePrometheus(t)
	const password = "pr0m-reader-Pa55"
	exp := newExporter(t)
	exp.set("t1", "0.001")
	prom := startPrometheusAs(t, exp.addr(), "reader", password)
	prom.waitTargetUp(t)
	query := `max(gate_error_ratio)`
	prom.waitValue(t, query, "0.001")

	maxRatio := 0.01
	unauthenticated := gates.Check(context.Background(), deploy.GateSpec{Prometheus: &deploy.PrometheusGate{
		URL: prom.url(), Query: query, Max: &maxRatio, Timeout: 10 * time.Second}}, gates.WaveInput{})
	if unauthenticated.State != deploy.GateInconclusive || !strings.Contains(unauthenticated.Detail, "answered HTTP 401") {
		t.Fatalf("a query without the password: %s %q, want inconclusive on HTTP 401", unauthenticated.State, unauthenticated.Detail)
	}

	r := newRig(t, rigOptions{steps: []string{"secrets", "artifacts", "deploy", "activation"}, maxRecovery: 3})
	r.srv.start()
	r.artifact("1.0.0")
	write(t, filepath.Join(r.dir, "prom-password"), password+"\n")
	gate := fmt.Sprintf(`{name: errors, prometheus: {url: %q, query: %q, max: 0.01, basic_auth: {username: reader, password_secret: prom}}}`,
		prom.url(), query)
	r.env("prod", rolloutEnv(3, "0s", gate)+"secrets: [{name: prom, ref: \"file:prom-password\"}]\n")

	good := r.followToEnd(r.submit(r.descriptor("prom-auth", "prod", "1.0.0", "")))
	if good.State != "SUCCESS" {
		t.Fatalf("deploy behind basic authentication: %s, %s", good.State, good.errorText())
	}
	for _, w := range r.rolloutStatus(good.ID).Rollout.Waves {
		if w.State != "passed" || w.Gate == nil || w.Gate.State != "pass" || len(w.Gate.Checks) != 1 ||
			w.Gate.Checks[0].Value == nil || *w.Gate.Checks[0].Value != 0.001 {
			t.Errorf("wave %s: %s, gate %+v, want passed with 0.001", w.Name, w.State, w.Gate)
		}
	}
	eff := pgtest.Strings(t, r.srv.dbURL, `SELECT effective::text FROM manent.deployments WHERE id = $1`, good.ID)
	if len(eff) != 1 || !strings.Contains(eff[0], `"password_secret": "prom"`) || strings.Contains(eff[0], password) {
		t.Fatalf("stored effective deploy %q: want the secret's name, never the password", eff)
	}
	body, code := r.get("/api/v1/deployments/" + good.ID)
	if code != http.StatusOK || strings.Contains(string(body), password) {
		t.Fatalf("status (%d) shows the password: %s", code, body)
	}
}
