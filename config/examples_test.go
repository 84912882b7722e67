package config_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
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
