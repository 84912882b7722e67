package config_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"manent.dev/manent/config"
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
	c, err := config.Parse(nil, t.TempDir())
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
