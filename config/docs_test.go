package config_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/descriptor"
)

var yamlBlock = regexp.MustCompile("(?s)```yaml\n(.*?)```")

// TestDocEnvConfigExamples parses the environment configurations shown in
// docs/manent-yml.md, whole files and rollback fragments, so the reference
// cannot show what ParseEnvConfig refuses.
func TestDocEnvConfigExamples(t *testing.T) {
	text, err := os.ReadFile("../docs/manent-yml.md")
	if err != nil {
		t.Fatal(err)
	}
	// The full example sets the parameter of a custom step.
	c, err := config.Parse([]byte(`pipeline:
  steps:
    - {name: secrets, mode: mandatory}
    - {name: artifacts, mode: mandatory}
    - {name: qa, mode: mandatory}
    - {name: deploy, mode: mandatory}
    - {name: post-test, mode: optional}
    - {name: activation, mode: optional}
    - name: db-migrate
      mode: optional
      type: http
      params: {database: {pattern: "[a-z][a-z0-9_]{0,62}"}}
      run: {url: "https://ops.example.com/migrate"}
`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for i, m := range yamlBlock.FindAllStringSubmatch(string(text), -1) {
		doc := m[1]
		switch {
		case strings.HasPrefix(doc, "rollback:"):
			doc = "plugin: local\n" + doc
		case !strings.Contains(doc, "\nplugin:") && !strings.HasPrefix(doc, "plugin:"):
			continue // manent.yml
		}
		found++
		if _, err := c.ParseEnvConfig([]byte(doc)); err != nil {
			t.Errorf("block %d: %v\n%s", i, err, doc)
		}
	}
	if found < 2 {
		t.Errorf("found %d environment configurations, want the full example and the rollback one", found)
	}
}

// TestDocRolloutExamples reads the examples of docs/rollouts.md: the
// environment configuration as a whole, the descriptor's rollout under
// descriptor_policy.rollout: pacing merged into it, so neither page can
// show what manent refuses.
func TestDocRolloutExamples(t *testing.T) {
	text, err := os.ReadFile("../docs/rollouts.md")
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse([]byte("pipeline: {descriptor_policy: {rollout: pacing}}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var env *config.EnvConfig
	var overrides []string
	for i, m := range yamlBlock.FindAllStringSubmatch(string(text), -1) {
		switch doc := m[1]; {
		case strings.HasPrefix(doc, "# envconfig/"):
			if env, err = c.ParseEnvConfig([]byte(doc)); err != nil {
				t.Fatalf("block %d: %v\n%s", i, err, doc)
			}
		case strings.HasPrefix(doc, "# a descriptor"):
			overrides = append(overrides, doc)
		case strings.HasPrefix(doc, "rollout:"):
			// A part of an environment configuration (the gates section).
			if _, err := c.ParseEnvConfig([]byte("plugin: local\ntargets: [{path: a}]\n" + doc)); err != nil {
				t.Errorf("block %d: %v\n%s", i, err, doc)
			}
		default:
			t.Errorf("block %d is neither an environment configuration nor a descriptor's rollout:\n%s", i, doc)
		}
	}
	if env == nil || env.Rollout == nil || len(overrides) == 0 {
		t.Fatalf("found the environment configuration %v and %d descriptor rollouts", env != nil, len(overrides))
	}
	for _, o := range overrides {
		d, err := descriptor.Parse([]byte("apiVersion: manent/v1\napplication: hello\nenvironment: prod\n" +
			"artifact: {type: application, name: hello, version: 1.0.0, source: file:hello.tgz}\n" + o))
		if err != nil {
			t.Fatalf("%v\n%s", err, o)
		}
		if _, err := config.Merge(d, env, c.Pipeline.DescriptorPolicy, "demo"); err != nil {
			t.Errorf("%v\n%s", err, o)
		}
	}
}

// TestDocCustomStepExamples parses the manent.yml examples of custom steps
// (the blocks that start with "# manent.yml") in docs/custom-steps.md and
// docs/manent-yml.md, and the environment configurations of
// docs/custom-steps.md against the first of them: no page may show what the
// server refuses at start-up.
func TestDocCustomStepExamples(t *testing.T) {
	found, envs := 0, 0
	for _, page := range []string{"../docs/custom-steps.md", "../docs/manent-yml.md"} {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		var first *config.Config
		for i, m := range yamlBlock.FindAllStringSubmatch(string(text), -1) {
			doc := m[1]
			switch {
			case strings.HasPrefix(doc, "# manent.yml"):
				found++
				c, err := config.Parse([]byte(doc), t.TempDir())
				if err != nil {
					t.Errorf("%s block %d: %v\n%s", page, i, err, doc)
					continue
				}
				if first == nil {
					first = c
				}
			case strings.HasPrefix(doc, "# envconfig/") && first != nil && strings.HasSuffix(page, "custom-steps.md"):
				envs++
				if _, err := first.ParseEnvConfig([]byte(doc)); err != nil {
					t.Errorf("%s block %d: %v\n%s", page, i, err, doc)
				}
			}
		}
	}
	if found < 5 || envs < 1 {
		t.Errorf("found %d manent.yml examples of custom steps, %d environment configurations", found, envs)
	}
}
