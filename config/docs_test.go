package config_test

import (
	"os"
	"regexp"
	"slices"
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

// TestWalkThroughQuotesTheDemo: every YAML block of docs/custom-steps.md
// that names a file of examples/ in its first line ("# examples/...") is a
// part of that file, its comments aside: each run of lines between "# …"
// elisions stands in the file as it is, in order, so the walk-through
// cannot drift from the demo it runs.
func TestWalkThroughQuotesTheDemo(t *testing.T) {
	text, err := os.ReadFile("../docs/custom-steps.md")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for i, m := range yamlBlock.FindAllStringSubmatch(string(text), -1) {
		header, body, _ := strings.Cut(m[1], "\n")
		rel, ok := strings.CutPrefix(header, "# examples/")
		if !ok {
			continue
		}
		found++
		file, err := os.ReadFile("../examples/" + strings.Fields(rel)[0])
		if err != nil {
			t.Errorf("block %d: %v", i, err)
			continue
		}
		lines := yamlLines(string(file))
		from := 0
		for _, chunk := range excerptChunks(body) {
			at := indexLines(lines[from:], chunk)
			if at < 0 {
				t.Errorf("block %d: examples/%s has no lines, at this place, of:\n%s", i, rel, strings.Join(chunk, "\n"))
				break
			}
			from += at + len(chunk)
		}
	}
	if found < 5 {
		t.Errorf("found %d blocks quoting examples/, want those of the walk-through", found)
	}
}

// yamlLines are the lines of a YAML text without comments, trailing
// spaces or blank lines.
func yamlLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if i := strings.Index(l, " #"); i >= 0 {
			l = l[:i]
		}
		l = strings.TrimRight(l, " ")
		if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// excerptChunks are the runs of lines of an excerpt between its "# …"
// lines, each as yamlLines gives it.
func excerptChunks(body string) [][]string {
	var chunks [][]string
	var cur []string
	for _, l := range strings.Split(body, "\n") {
		if strings.TrimSpace(l) == "# …" {
			chunks, cur = append(chunks, cur), nil
			continue
		}
		cur = append(cur, yamlLines(l)...)
	}
	return append(chunks, cur)
}

// indexLines is where want starts in lines, contiguous; -1 when it does not.
func indexLines(lines, want []string) int {
	for i := 0; i+len(want) <= len(lines); i++ {
		if slices.Equal(lines[i:i+len(want)], want) {
			return i
		}
	}
	return -1
}
