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

// demoPlan loads the demo's configuration and plans the example
// descriptor name as a submission would, custom steps bound to the deploy.
func demoPlan(t *testing.T, name string) (*config.Config, deploy.Plan, *deploy.Effective) {
	t.Helper()
	t.Setenv("DATABASE_URL", "")
	c, err := config.Load("../examples/manent.yml")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("../examples/deploys", name))
	if err != nil {
		t.Fatal(err)
	}
	d, err := descriptor.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	env, err := c.LoadEnvConfig(c.Server.DefaultTenant, d.Application, d.Environment)
	if err != nil {
		t.Fatal(err)
	}
	eff, err := config.Merge(d, env, c.Pipeline.DescriptorPolicy, c.Server.DefaultTenant)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := c.Plan(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := config.ResolveCustomSteps(plan, d, &eff); err != nil {
		t.Fatal(err)
	}
	return c, plan, &eff
}

func plannedStep(plan deploy.Plan, name string) (deploy.PlannedStep, bool) {
	i := slices.IndexFunc(plan.Steps, func(s deploy.PlannedStep) bool { return s.Name == name })
	if i < 0 {
		return deploy.PlannedStep{}, false
	}
	return plan.Steps[i], true
}

// TestExamplePurge: examples/deploys/hello-purge.yml turns on the demo's
// HTTP step cdn-purge, which runs last, once hello is active: a POST to
// the demo CDN that manent-server dev serves over TLS on loopback, with
// the bearer token of hello/staging's secrets, polled until done, its
// purge_id read in the first answer. The demo's other deploys leave it off.
func TestExamplePurge(t *testing.T) {
	_, plan, eff := demoPlan(t, "hello-purge.yml")
	names := plan.Names()
	if i := slices.Index(names, "cdn-purge"); i < 0 || names[i-1] != deploy.StepActivation {
		t.Fatalf("plan %v, want cdn-purge right after activation", names)
	}
	s, _ := plannedStep(plan, "cdn-purge")
	spec := s.Spec
	if s.Type != deploy.StepTypeHTTP || spec == nil || spec.Run.Poll == nil || spec.Run.Auth == nil {
		t.Fatalf("cdn-purge = %+v, want an HTTP step that polls, with its auth", s)
	}
	if !strings.HasPrefix(spec.Run.URL, "https://127.0.0.1:8443/") || !strings.HasPrefix(spec.Run.Poll.URL, "https://127.0.0.1:8443/purges/") {
		t.Errorf("urls %s and %s, want the demo CDN of manent-server dev (--demo-cdn-listen's default)", spec.Run.URL, spec.Run.Poll.URL)
	}
	if spec.Run.Auth.Type != "bearer" || spec.Run.Auth.Secret != "cdn-token" || spec.Outputs["purge_id"].Path != "$.result.id" {
		t.Errorf("auth %+v, outputs %+v", spec.Run.Auth, spec.Outputs)
	}
	if zone := eff.StepParams["cdn-purge"]["zone"]; len(zone) != 32 {
		t.Errorf("step_params = %v, want hello/staging's zone", eff.StepParams)
	}
	if i := slices.IndexFunc(eff.Secrets, func(s deploy.SecretRef) bool { return s.Name == "cdn-token" }); i < 0 ||
		eff.Secrets[i].Ref != "file:secrets/cdn-token" {
		t.Errorf("secrets = %+v, want cdn-token from examples/secrets", eff.Secrets)
	}
	token, err := os.ReadFile("../examples/secrets/cdn-token")
	if err != nil || len(strings.TrimSpace(string(token))) < 8 {
		t.Errorf("examples/secrets/cdn-token: %q, %v: a token of at least 8 bytes (shorter secrets are refused)", token, err)
	}
	for _, other := range []string{"hello.yml", "hello-broken.yml"} {
		_, plan, _ := demoPlan(t, other)
		if _, on := plannedStep(plan, "cdn-purge"); on {
			t.Errorf("%s runs cdn-purge: it is off unless a descriptor turns it on", other)
		}
	}
}

// TestExampleMigrate: examples/deploys/hello-ssh-migrate.yml turns on the
// demo's command step db-migrate, which runs before deploy on the first
// host of the SSH fleet only, the tool that examples/ssh installs, checked
// by its SHA-256 before it runs, with its own secrets and a dry run with
// read-only ones.
func TestExampleMigrate(t *testing.T) {
	c, plan, eff := demoPlan(t, "hello-ssh-migrate.yml")
	names := plan.Names()
	if i := slices.Index(names, "db-migrate"); i < 0 || names[i+1] != deploy.StepDeploy {
		t.Fatalf("plan %v, want db-migrate right before deploy", names)
	}
	s, _ := plannedStep(plan, "db-migrate")
	spec := s.Spec
	if s.Type != deploy.StepTypeCommand || spec == nil || !spec.Run.RunOnce || spec.DryRun == nil {
		t.Fatalf("db-migrate = %+v, want a run_once command step with a dry run", s)
	}
	if want := "/var/tmp/manent-ssh-fleet/tools/migrate"; spec.Run.Command[0] != want || spec.DryRun.Command[0] != want {
		t.Errorf("commands %q and %q, want the tool examples/ssh installs under its default -dir, %s", spec.Run.Command, spec.DryRun.Command, want)
	}
	tool, err := os.ReadFile("../examples/ssh/migrate")
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(tool); spec.Run.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("run.sha256 = %s, want examples/ssh/migrate's, %x: update it with the tool", spec.Run.SHA256, sum)
	}
	if _, ok := spec.Outputs["applied"]; !ok || !slices.Equal(spec.Secrets, []string{"db-admin"}) ||
		!slices.Equal(spec.DryRun.Secrets, []string{"db-readonly"}) {
		t.Errorf("outputs %v, secrets %v, dry run's %v", spec.Outputs, spec.Secrets, spec.DryRun.Secrets)
	}
	if spec.SSH == nil || spec.SSH.KeySecret != "deploy-key" {
		t.Errorf("ssh = %+v, want the fleet's deploy key", spec.SSH)
	}
	if eff.StepParams["db-migrate"]["database"] != "hello" {
		t.Errorf("step_params = %v, want hello/ssh's database", eff.StepParams)
	}
	examples, err := filepath.Abs("../examples")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(examples, "ssh/fleet/known_hosts"); c.Pipeline.Custom.KnownHosts != want {
		t.Errorf("pipeline.custom.known_hosts = %s, want %s, which examples/ssh writes", c.Pipeline.Custom.KnownHosts, want)
	}
	for _, f := range []string{"db-admin", "db-readonly"} {
		if b, err := os.ReadFile(filepath.Join("../examples/secrets", f)); err != nil || len(strings.TrimSpace(string(b))) < 8 {
			t.Errorf("examples/secrets/%s: %q, %v", f, b, err)
		}
	}
}
