package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fleetEnv is an environment configuration of five local targets in two
// regions, one under maintenance, rolled out in three waves.
func fleetEnv(dir, rule string) string {
	return fmt.Sprintf(`plugin: local
targets:
  - {path: %[1]s/eu1, labels: {region: eu, os: linux}}
  - {path: %[1]s/eu2, labels: {region: eu, os: linux}}
  - {path: %[1]s/eu3, labels: {region: eu, os: linux, maintenance: "true"}}
  - {path: %[1]s/us1, labels: {region: us, os: linux}}
  - {path: %[1]s/us2, labels: {region: us, os: %[2]s}}
rollout:
  rule: {labels: {os: linux}}
  exclude: {labels: {maintenance: "true"}}
  bake: 30s
  waves:
    - {name: canary, select: {labels: {region: eu}}, count: 1, bake: 1m}
    - {name: eu, select: {labels: {region: eu}}, approval: true}
    - {name: rest, batch: 1}
`, dir, rule)
}

func TestValidateShowsTheRolloutPlan(t *testing.T) {
	configPath, target := demoConfig(t)
	envPath := filepath.Join(filepath.Dir(configPath), "envconfig/demo/hello/staging.yml")
	dir := filepath.Dir(target)
	if err := os.WriteFile(envPath, []byte(fleetEnv(dir, "linux")), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, configPath)

	resp, body := request(t, "POST", srv.URL()+"/api/v1/deployments/plan", demoTokens["ci"], fmt.Sprintf(helloDescriptor, "fleet-1"))
	var p struct {
		Rollout rolloutPlanJSON `json:"rollout"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &p) != nil {
		t.Fatalf("plan: %d %s", resp.StatusCode, body)
	}
	var got []string
	for _, pass := range p.Rollout.Passes {
		s := fmt.Sprintf("%d %s bake=%ds approval=%v:", pass.Index, pass.Name, pass.BakeSeconds, pass.Approval)
		for _, b := range pass.Batches {
			s += fmt.Sprintf(" b%d%v", b.Index, b.Targets)
		}
		got = append(got, s)
	}
	for _, tg := range p.Rollout.Targets {
		if tg.Outcome != "targeted" {
			got = append(got, tg.Name+" "+string(tg.Outcome)+": "+*tg.Reason)
		}
	}
	eu, us := func(n string) string { return dir + "/eu" + n }, func(n string) string { return dir + "/us" + n }
	want := []string{
		fmt.Sprintf("1 canary bake=60s approval=false: b1[%s]", eu("1")),
		fmt.Sprintf("2 eu bake=30s approval=true: b1[%s]", eu("2")),
		fmt.Sprintf("3 rest bake=30s approval=false: b1[%s] b2[%s]", us("1"), us("2")),
		eu("3") + " excluded: matches rollout.exclude (maintenance=true)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rollout\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	// GraphQL's validation answers the same plan.
	q, _ := json.Marshal(map[string]any{
		"query":     `mutation($d: String!) { submitDeployment(descriptor: $d, validateOnly: true) { deployment { plan { rollout { passes { name batches { targets } } targets { name outcome pass batch } } } } } }`,
		"variables": map[string]any{"d": fmt.Sprintf(helloDescriptor, "fleet-2")},
	})
	req, _ := http.NewRequest("POST", srv.URL()+"/graphql", bytes.NewReader(q))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+demoTokens["ci"])
	gresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(gresp.Body)
	gresp.Body.Close()
	if gresp.StatusCode != http.StatusOK || !strings.Contains(string(body), `{"name":"rest","batches":[{"targets":["`+us("1")+`"]},{"targets":["`+us("2")+`"]}]}`) ||
		!strings.Contains(string(body), `{"name":"`+eu("3")+`","outcome":"EXCLUDED","pass":null,"batch":null}`) {
		t.Errorf("graphql: %d %s", gresp.StatusCode, body)
	}

	// A target the rule rejects refuses the deploy, at its path, nothing stored.
	if err := os.WriteFile(envPath, []byte(fleetEnv(dir, "windows")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/v1/deployments/plan", "/api/v1/deployments"} {
		resp, body = request(t, "POST", srv.URL()+path, demoTokens["ci"], fmt.Sprintf(helloDescriptor, "fleet-3"))
		var refusal struct {
			Error struct {
				Code   string
				Errors []struct{ Path, Message string }
			}
		}
		_ = json.Unmarshal(body, &refusal)
		if resp.StatusCode != http.StatusUnprocessableEntity || refusal.Error.Code != "UNPROCESSABLE" || len(refusal.Error.Errors) != 1 ||
			refusal.Error.Errors[0].Path != "targets[4]" ||
			refusal.Error.Errors[0].Message != us("2")+": rejected: does not match rollout.rule: os is windows, not linux" {
			t.Errorf("%s with a rejected target: %d %s", path, resp.StatusCode, body)
		}
	}
	resp, body = request(t, "GET", srv.URL()+"/api/v1/deployments/fleet-3", demoTokens["admin"], "")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a refused deploy was stored: %d %s", resp.StatusCode, body)
	}
}
