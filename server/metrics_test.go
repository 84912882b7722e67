package server

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"manent.dev/manent/internal/pgtest"
)

// scrapeToken is the token Prometheus sends in these tests.
const scrapeToken = "scrape-s3cret-4f1c"

// metricsConfig is the demo configuration with the scrape token and a
// prod environment whose deploys wait for an approval; it returns the
// api's manent.yml and a worker's (an executor ID of its own).
// demoAdminToken is a token with admin on the default tenant alone.
const demoAdminToken = "t-demo-admin"

func metricsConfig(t *testing.T) (apiConfig, workerConfig string) {
	t.Helper()
	configPath, _ := demoConfig(t)
	dir := filepath.Dir(configPath)
	b, err := os.ReadFile(configPath)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte("server:\n"), []byte("server:\n  metrics: {token_sha256: "+hash(scrapeToken)+"}\n"), 1)
	// An administrator of the default tenant alone: the metrics are
	// server-wide, so not theirs to read.
	b = bytes.Replace(b, []byte("  tokens:\n"), []byte("  tokens:\n    - {name: demo-admin, sha256: "+hash(demoAdminToken)+"}\n"), 1)
	b = bytes.Replace(b, []byte("  policy: |\n"), []byte("  policy: |\n    p, token:demo-admin, demo, *, admin\n"), 1)
	b = append(b, "governance:\n  approvals:\n    - {name: prod, match: {environment: prod}, count: 1}\n"...)
	if err := os.WriteFile(configPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	env := "plugin: local\ntargets:\n  - path: " + filepath.Join(dir, "prod-target") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "envconfig/demo/hello/prod.yml"), []byte(env), 0o644); err != nil {
		t.Fatal(err)
	}
	workerConfig = filepath.Join(dir, "worker.yml")
	if err := os.WriteFile(workerConfig, bytes.Replace(b, []byte("executor_id: test"), []byte("executor_id: worker"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	return configPath, workerConfig
}

// scrape reads /metrics of srv with token and parses it as Prometheus
// does; it fails the test unless the answer is 200.
func scrape(t *testing.T, srv *Server, token string) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	resp, body := request(t, "GET", srv.URL()+"/metrics", token, "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape %s: %d %s", srv.Role(), resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("content type %q, want the text format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse the metrics of %s: %v\n%s", srv.Role(), err, body)
	}
	return families, string(body)
}

// value is the value of the series of family whose labels include want
// (a histogram's count), and whether there is one.
func value(families map[string]*dto.MetricFamily, family string, want map[string]string) (float64, bool) {
	f := families[family]
	if f == nil {
		return 0, false
	}
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range want {
			match = match && labels[k] == v
		}
		if !match {
			continue
		}
		switch {
		case m.GetGauge() != nil:
			return m.GetGauge().GetValue(), true
		case m.GetCounter() != nil:
			return m.GetCounter().GetValue(), true
		case m.GetHistogram() != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

// TestMetricsAfterADeploy runs an api and a worker, deploys once and
// leaves a deploy waiting for its approval, and reads what each process
// shows Prometheus.
func TestMetricsAfterADeploy(t *testing.T) {
	apiConfig, workerConfig := metricsConfig(t)
	dbURL := pgtest.URL(t)
	t.Setenv("DATABASE_URL", dbURL)
	api := startRole(t, apiConfig, RoleAPI)
	worker := startRole(t, workerConfig, RoleWorker)

	base := api.URL() + "/api/v1/deployments"
	resp, body := request(t, "POST", base, demoTokens["ci"], fmt.Sprintf(helloDescriptor, "hello-metrics-1"))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: %d %s", resp.StatusCode, body)
	}
	if states := followSSE(t, base+"/hello-metrics-1/events", demoTokens["ci"]); len(states) == 0 || states[len(states)-1] != "SUCCESS" {
		t.Fatalf("SSE states = %v, want to end with SUCCESS", states)
	}
	waiting := strings.Replace(fmt.Sprintf(helloDescriptor, "hello-metrics-wait"), "environment: staging", "environment: prod", 1)
	resp, body = request(t, "POST", base, demoTokens["ci"], waiting)
	if resp.StatusCode != http.StatusAccepted || !strings.Contains(string(body), "AWAITING_APPROVAL") {
		t.Fatalf("submit the deploy to approve: %d %s", resp.StatusCode, body)
	}
	// A subscriber is open while the api is scraped.
	if _, err := dial(t, api, nil, map[string]any{"token": demoTokens["viewer"]}); err != nil {
		t.Fatal(err)
	}

	// The worker ran the steps: it timed them.
	families, workerText := scrape(t, worker, scrapeToken)
	for _, step := range []string{"config", "artifacts", "deploy"} {
		if n, _ := value(families, "manent_step_duration_seconds", map[string]string{"step": step, "state": "SUCCESS", "kind": "run"}); n < 1 {
			t.Errorf("worker: %g durations of the %s step observed, want at least 1", n, step)
		}
	}
	apiFamilies, apiText := scrape(t, api, demoTokens["admin"])
	// Both read the figures from the database.
	for role, f := range map[string]map[string]*dto.MetricFamily{"api": apiFamilies, "worker": families} {
		checks := []struct {
			family string
			labels map[string]string
			min    float64
		}{
			{"manent_deployments", map[string]string{"state": "SUCCESS"}, 1},
			{"manent_deployments", map[string]string{"state": "AWAITING_APPROVAL"}, 1},
			{"manent_deployments", map[string]string{"state": "ERROR"}, 0},
			{"manent_queue_workflows", map[string]string{"queue": "manent.wait"}, 1},
			{"manent_database_up", nil, 1},
			{"manent_build_info", map[string]string{"version": "dev"}, 1},
			{"manent_database_errors_total", map[string]string{"pool": "dbos", "class": "unavailable"}, 0},
			{"go_goroutines", nil, 1},
			{"process_resident_memory_bytes", nil, 1},
			{"go_sql_open_connections", map[string]string{"db_name": "manent"}, 1},
		}
		for _, c := range checks {
			if v, ok := value(f, c.family, c.labels); !ok || v < c.min {
				t.Errorf("%s: %s%v = %g (present %v), want at least %g", role, c.family, c.labels, v, ok, c.min)
			}
		}
		// A deploy that went well refused no statement: what the database
		// answers in the normal course (no row, the rollback after a
		// commit) is no error.
		for _, pool := range []string{"manent", "dbos"} {
			if v, _ := value(f, "manent_database_errors_total", map[string]string{"pool": pool, "class": "statement"}); v != 0 {
				t.Errorf("%s: %g statement errors of the %s pool in a run without a fault", role, v, pool)
			}
		}
	}
	for _, c := range []struct {
		labels map[string]string
		min    float64
	}{
		{map[string]string{"route": "POST /api/v1/deployments", "code": "2xx"}, 2},
		{map[string]string{"route": "GET /api/v1/deployments/{id}/events", "code": "2xx"}, 1},
	} {
		if v, _ := value(apiFamilies, "manent_http_requests_total", c.labels); v < c.min {
			t.Errorf("api: manent_http_requests_total%v = %g, want at least %g", c.labels, v, c.min)
		}
	}
	if v, ok := value(apiFamilies, "manent_live_connections", map[string]string{"transport": "websocket"}); !ok || v != 1 {
		t.Errorf("api: %g websockets open, want the test's 1", v)
	}
	// Routes are labels by their pattern alone: never a path with an ID.
	routes := append(routePatterns(), "unmatched")
	for _, m := range apiFamilies["manent_http_requests_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "route" && !slices.Contains(routes, l.GetValue()) {
				t.Errorf("route label %q is no pattern of the router", l.GetValue())
			}
		}
	}
	checkDocumented(t, apiFamilies, families)
	// No deploy, no credential, no database address.
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"hello-metrics", scrapeToken, demoTokens["admin"], demoTokens["ci"], dbURL, u.Host}
	if pw, ok := u.User.Password(); ok {
		secrets = append(secrets, pw)
	}
	for role, text := range map[string]string{"api": apiText, "worker": workerText} {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("the metrics of the %s hold %q", role, s)
			}
		}
	}
}

// TestMetricsNeedTheScrapeTokenOrAnAdmin: /metrics refuses whoever is
// neither, on the api and on a worker (which authenticates no one else).
func TestMetricsNeedTheScrapeTokenOrAnAdmin(t *testing.T) {
	apiConfig, workerConfig := metricsConfig(t)
	t.Setenv("DATABASE_URL", pgtest.URL(t))
	servers := map[string]*Server{RoleAPI: startRole(t, apiConfig, RoleAPI), RoleWorker: startRole(t, workerConfig, RoleWorker)}
	tests := []struct {
		name, role, token string
		want              int
	}{
		{"api, no token", RoleAPI, "", http.StatusUnauthorized},
		{"api, unknown token", RoleAPI, "not-a-token", http.StatusUnauthorized},
		{"api, the hash for the token", RoleAPI, hash(scrapeToken), http.StatusUnauthorized},
		{"api, a reader", RoleAPI, demoTokens["viewer"], http.StatusForbidden},
		{"api, a deployer", RoleAPI, demoTokens["ci"], http.StatusForbidden},
		{"api, an admin", RoleAPI, demoTokens["admin"], http.StatusOK},
		{"api, an admin of the default tenant alone", RoleAPI, demoAdminToken, http.StatusForbidden},
		{"api, the scrape token", RoleAPI, scrapeToken, http.StatusOK},
		{"worker, no token", RoleWorker, "", http.StatusUnauthorized},
		{"worker, an admin", RoleWorker, demoTokens["admin"], http.StatusUnauthorized},
		{"worker, the scrape token", RoleWorker, scrapeToken, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := request(t, "GET", servers[tt.role].URL()+"/metrics", tt.token, "")
			if resp.StatusCode != tt.want {
				t.Fatalf("%d %s, want %d", resp.StatusCode, body, tt.want)
			}
			refused := tt.want != http.StatusOK
			if refused == strings.Contains(string(body), "manent_build_info") {
				t.Errorf("answer %s", body)
			}
			if refused && strings.Contains(string(body), tt.token) && tt.token != "" {
				t.Errorf("the refusal echoes the token: %s", body)
			}
		})
	}
}

// checkDocumented holds docs/scaling.md to the metrics the processes
// serve: every manent_ metric it names exists, every one served is in its
// table, and its alerting rules are YAML of the shape Prometheus reads.
func checkDocumented(t *testing.T, served ...map[string]*dto.MetricFamily) {
	t.Helper()
	doc, err := os.ReadFile("../docs/scaling.md")
	if err != nil {
		t.Fatal(err)
	}
	exists := map[string]bool{}
	for _, families := range served {
		for name := range families {
			exists[name] = true
		}
	}
	for _, name := range regexp.MustCompile(`manent_[a-z_]*[a-z]`).FindAllString(string(doc), -1) {
		family := name
		for _, suffix := range []string{"_bucket", "_count", "_sum"} {
			if trimmed, ok := strings.CutSuffix(name, suffix); ok && !exists[name] {
				family = trimmed
			}
		}
		if !exists[family] {
			t.Errorf("docs/scaling.md names %s, which no process serves", name)
		}
	}
	for name := range exists {
		if strings.HasPrefix(name, "manent_") && !strings.Contains(string(doc), "| `"+name+"` |") {
			t.Errorf("%s is served but has no row in the table of docs/scaling.md", name)
		}
	}
	rules := 0
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		var file struct {
			Groups []struct {
				Name  string `yaml:"name"`
				Rules []struct {
					Alert string `yaml:"alert"`
					Expr  string `yaml:"expr"`
				} `yaml:"rules"`
			} `yaml:"groups"`
		}
		if err := yaml.Unmarshal([]byte(m[1]), &file); err != nil {
			t.Errorf("a YAML block of docs/scaling.md: %v\n%s", err, m[1])
			continue
		}
		for _, g := range file.Groups {
			for _, r := range g.Rules {
				rules++
				if r.Alert == "" || strings.TrimSpace(r.Expr) == "" {
					t.Errorf("rule %+v of group %s has no alert name or no expression", r, g.Name)
				}
			}
		}
	}
	if rules < 5 {
		t.Errorf("docs/scaling.md holds %d alerting rules, want the alerts an operator sets", rules)
	}
}
