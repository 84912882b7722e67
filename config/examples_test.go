package config_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
	"manent.dev/manent/engine/rollout"
)

// TestExamples submits the demo's descriptor against the demo's
// configuration, as far as this package goes: what `make run` serves must load.
func TestExamples(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	examples, err := filepath.Abs("../examples")
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(filepath.Join(examples, "manent.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.DefaultTenant != "demo" {
		t.Errorf("default_tenant = %q", c.Server.DefaultTenant)
	}
	for i, name := range []string{"demo-admin", "demo-ci", "demo-viewer"} {
		sum := sha256.Sum256([]byte(name))
		if tok := c.Auth.Tokens[i]; tok.Name != name || tok.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("token %d = %+v, want the hash of %q", i, tok, name)
		}
	}

	data, err := os.ReadFile(filepath.Join(examples, "deploys", "hello.yml"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := descriptor.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckSource(d.Artifact.Source); err != nil {
		t.Fatal(err)
	}
	path, err := c.ResolveFileSource(d.Artifact.Source)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("artifact: %v", err)
	}
	env, err := c.LoadEnvConfig(c.Server.DefaultTenant, d.Application, d.Environment)
	if err != nil {
		t.Fatal(err)
	}
	eff, err := config.Merge(d, env, c.Pipeline.DescriptorPolicy, c.Server.DefaultTenant)
	if err != nil {
		t.Fatal(err)
	}
	if eff.Partition() != "demo/hello/staging" || eff.Plugin != "local" || eff.ConfigRevision == "" {
		t.Errorf("effective = %+v", eff)
	}
	// The demo's staging undoes a failed deploy (examples/deploys/hello-broken.yml).
	if !eff.Rollback.Enabled || !eff.Rollback.Covers(deploy.StepPostTest) {
		t.Errorf("rollback = %+v", eff.Rollback)
	}
	if len(eff.Health) != 1 || !strings.Contains(eff.Health[0].URL, "{{ .Version }}") {
		t.Errorf("health = %+v", eff.Health)
	}
	// Kept as written: the engine resolves it against the manent.yml directory.
	if len(eff.Targets) != 1 || eff.Targets[0].Path != "../.manent/targets/hello/staging" {
		t.Errorf("targets = %+v", eff.Targets)
	}
	plan, err := c.Plan(d)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		deploy.StepConfig, deploy.StepSecrets, deploy.StepArtifacts, deploy.StepQA, deploy.StepDeploy,
		deploy.StepPostTest, deploy.StepActivation, deploy.StepCleanup,
	}
	if got := plan.Names(); !slices.Equal(got, want) {
		t.Errorf("plan = %v, want %v", got, want)
	}
}

// TestExampleSSHEnvironment: hello/ssh deploys with the ssh plugin to the
// three users of the demo's loopback fleet (examples/ssh) on port 2222,
// with the deploy key and the known_hosts that examples/ssh writes next to
// manent.yml.
func TestExampleSSHEnvironment(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	examples, err := filepath.Abs("../examples")
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(filepath.Join(examples, "manent.yml"))
	if err != nil {
		t.Fatal(err)
	}
	env, err := c.LoadEnvConfig("demo", "hello", "ssh")
	if err != nil {
		t.Fatal(err)
	}
	if env.Plugin != "ssh" || env.Params["path"] != "apps/hello" || env.Params["keep_releases"] == "" {
		t.Errorf("plugin %q, params %v", env.Plugin, env.Params)
	}
	var users []string
	for _, tg := range env.Targets {
		if tg.Host != "127.0.0.1" || tg.Port != 2222 || tg.Path != "" {
			t.Errorf("target %+v, want 127.0.0.1:2222 without a path of its own", tg)
		}
		users = append(users, tg.User)
	}
	if want := []string{"manent-fleet-eu", "manent-fleet-us", "manent-fleet-ap"}; !slices.Equal(users, want) {
		t.Errorf("users %q, want %q: the users examples/ssh creates", users, want)
	}
	if len(env.Secrets) == 0 || env.Secrets[0].Name != "deploy-key" || env.Secrets[0].Ref != "file:ssh/fleet/deploy-key" {
		t.Errorf("secrets = %+v, want deploy-key from the file examples/ssh writes", env.Secrets)
	}
	if env.SSH == nil || env.SSH.KeySecret != "deploy-key" {
		t.Errorf("ssh = %+v, want key_secret deploy-key", env.SSH)
	}
	if want := filepath.Join(examples, "ssh/fleet/known_hosts"); c.Plugins.SSH.KnownHosts != want {
		t.Errorf("plugins.ssh.known_hosts = %s, want %s, which examples/ssh writes", c.Plugins.SSH.KnownHosts, want)
	}
	if c.Secrets.FileRoot != examples {
		t.Errorf("secrets.file_root = %s, want %s: the deploy key is examples/ssh/fleet/deploy-key", c.Secrets.FileRoot, examples)
	}
}

// TestExampleFleetEnvironment: hello/fleet rolls nine local targets out in
// three waves, the canary alone, the rest of eu in one batch of two, us and
// ap three at a time once approved (the last wave alone asks an approval);
// ap-4, under maintenance, is excluded; a failed wave
// rolls back; the gate asks the demo server's fleet check, which tolerates
// one broken target (examples/deploys/fleet-broken.yml depends on it).
func TestExampleFleetEnvironment(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	c, err := config.Load("../examples/manent.yml")
	if err != nil {
		t.Fatal(err)
	}
	env, err := c.LoadEnvConfig("demo", "hello", "fleet")
	if err != nil {
		t.Fatal(err)
	}
	if env.Plugin != "local" || len(env.Targets) != 10 {
		t.Fatalf("plugin %q, %d targets, want local and 10", env.Plugin, len(env.Targets))
	}
	regions := map[string]int{}
	for _, tg := range env.Targets {
		if tg.Labels["maintenance"] != "true" {
			regions[tg.Labels["region"]]++
		}
	}
	if want := map[string]int{"eu": 3, "us": 3, "ap": 3}; !maps.Equal(regions, want) {
		t.Errorf("targets by region %v, want %v", regions, want)
	}
	if !env.Rollback.Enabled {
		t.Errorf("rollback = %+v, want enabled", env.Rollback)
	}
	plan, err := rollout.Plan(env.Targets, env.Rollout)
	if err != nil {
		t.Fatal(err)
	}
	name := func(path string) string { return filepath.Base(path) }
	var got, approvals []string
	for _, p := range plan.Passes {
		if p.Approval {
			approvals = append(approvals, p.Name)
		}
		for _, b := range p.Batches {
			var names []string
			for _, n := range b.Targets {
				names = append(names, name(n))
			}
			got = append(got, fmt.Sprintf("%s/%d: %s", p.Name, b.Index, strings.Join(names, " ")))
		}
		if p.Bake <= 0 || p.Bake > 10*time.Second {
			t.Errorf("wave %s bakes %s, want a short bake", p.Name, p.Bake)
		}
	}
	want := []string{"canary/1: eu-1", "eu/1: eu-2 eu-3", "rest/1: us-1 us-2 us-3", "rest/2: ap-1 ap-2 ap-3"}
	if !slices.Equal(got, want) {
		t.Errorf("plan %q, want %q", got, want)
	}
	if want := []string{"rest"}; !slices.Equal(approvals, want) {
		t.Errorf("waves asking an approval %q, want %q: the demo approves before its last wave", approvals, want)
	}
	for _, pt := range plan.Targets {
		if wantOut := deploy.OutcomeTargeted; name(pt.Name) == "ap-4" {
			if pt.Outcome != deploy.OutcomeExcluded {
				t.Errorf("ap-4: %s, want excluded", pt.Outcome)
			}
		} else if pt.Outcome != wantOut {
			t.Errorf("%s: %s, want %s", pt.Name, pt.Outcome, wantOut)
		}
	}
	if gates := env.Rollout.Gates; len(gates) != 1 || gates[0].HTTP == nil ||
		!strings.Contains(gates[0].HTTP.URL, "/demo-fleet/hello/fleet?max_failing=1") {
		t.Errorf("gates = %+v, want the demo server's fleet check", gates)
	}
}
