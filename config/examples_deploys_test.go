package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

// TestExampleDeploys parses every descriptor of examples/deploys and merges
// it with the demo's configuration, as a submission would: a new example
// that does not load fails here, without a server.
func TestExampleDeploys(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	c, err := config.Load("../examples/manent.yml")
	if err != nil {
		t.Fatal(err)
	}
	// What each example is there to show; an example missing from this
	// table still has to load.
	checks := map[string]func(t *testing.T, d *deploy.Descriptor){
		"hello.yml":      func(*testing.T, *deploy.Descriptor) {},
		"hello-prod.yml": func(*testing.T, *deploy.Descriptor) {},
		"hello-after.yml": func(t *testing.T, d *deploy.Descriptor) {
			// Its dependency comes from --after; it exports the release.
			if e, ok := d.Exports["release"]; !ok || e.From != "deploy.release" {
				t.Errorf("exports = %+v", d.Exports)
			}
			withAfter, err := os.ReadFile("../examples/deploys/hello-after.yml")
			if err != nil {
				t.Fatal(err)
			}
			// The form its comment gives for an ID known in advance.
			d2, err := descriptor.Parse(append(withAfter, "after: [hello-staging-42]\nafterTimeout: 30m\n"...))
			if err != nil {
				t.Fatal(err)
			}
			if len(d2.After) != 1 || d2.AfterTimeout.String() != "30m0s" {
				t.Errorf("after = %v, afterTimeout = %v", d2.After, d2.AfterTimeout)
			}
		},
		"hello-broken.yml": func(t *testing.T, d *deploy.Descriptor) {
			// A version of its own, in the environment whose rollback is on.
			if d.Environment != "staging" || d.Artifact.Version == "1.0.0" {
				t.Errorf("descriptor = %+v", d)
			}
		},
		// The demo's SSH fleet (examples/ssh): a first version, then the
		// next, both in artifacts/.
		"hello-ssh.yml": func(t *testing.T, d *deploy.Descriptor) {
			if d.Environment != "ssh" || d.Artifact.Version != "1.0.0" {
				t.Errorf("descriptor = %+v", d)
			}
		},
		"hello-ssh-next.yml": func(t *testing.T, d *deploy.Descriptor) {
			if d.Environment != "ssh" || d.Artifact.Version != "1.2.0" {
				t.Errorf("descriptor = %+v", d)
			}
			path, err := c.ResolveFileSource(d.Artifact.Source)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("artifact: %v", err)
			}
		},
		// The demo's fleet (docs/rollouts.md): a good release, then a broken
		// one that the fleet's gate stops.
		"fleet.yml": func(t *testing.T, d *deploy.Descriptor) {
			if d.Environment != "fleet" || d.Artifact.Version != "1.0.0" {
				t.Errorf("descriptor = %+v", d)
			}
		},
		"fleet-broken.yml": func(t *testing.T, d *deploy.Descriptor) {
			// 1.1.0 is the release without index.html (examples/artifacts/make.sh).
			if d.Environment != "fleet" || d.Artifact.Version != "1.1.0" {
				t.Errorf("descriptor = %+v", d)
			}
		},
		// The custom steps of the demo (docs/custom-steps.md): each example
		// turns on one, which examples_custom_test.go plans.
		"hello-purge.yml": func(t *testing.T, d *deploy.Descriptor) {
			if d.Environment != "staging" || !d.Steps["cdn-purge"] {
				t.Errorf("descriptor = %+v", d)
			}
		},
		"hello-ssh-migrate.yml": func(t *testing.T, d *deploy.Descriptor) {
			if d.Environment != "ssh" || !d.Steps["db-migrate"] {
				t.Errorf("descriptor = %+v", d)
			}
		},
		"hello-at.yml": func(t *testing.T, d *deploy.Descriptor) {
			if d.Schedule == nil || d.Schedule.At == nil || d.Schedule.At.Year() != 2099 {
				t.Errorf("schedule = %+v", d.Schedule)
			}
		},
	}
	files, err := filepath.Glob("../examples/deploys/*.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
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
			env, err := c.LoadEnvConfig(c.Server.DefaultTenant, d.Application, d.Environment)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := config.Merge(d, env, c.Pipeline.DescriptorPolicy, c.Server.DefaultTenant); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(data), "#") {
				t.Error("an example starts with a comment saying how to run it")
			}
			if check, ok := checks[name]; ok {
				check(t, d)
			}
		})
	}
	for name := range checks {
		if _, err := os.Stat(filepath.Join("../examples/deploys", name)); err != nil {
			t.Errorf("example %s: %v", name, err)
		}
	}
}
