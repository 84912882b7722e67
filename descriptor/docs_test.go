package descriptor_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"manent.dev/manent/descriptor"
)

var codeBlock = regexp.MustCompile("(?s)```(yaml|json)\n(.*?)```")

// TestDocExamples parses every complete document shown in the reference
// pages, so an example cannot drift from what Parse accepts.
func TestDocExamples(t *testing.T) {
	for _, page := range []string{"../docs/descriptor.md", "../docs/releases.md"} {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range codeBlock.FindAllStringSubmatch(string(text), -1) {
			doc := m[2]
			if !strings.Contains(doc, "apiVersion") {
				continue // a fragment
			}
			kind, err := descriptor.Kind([]byte(doc))
			if err != nil {
				t.Errorf("%s block %d: %v", page, i, err)
				continue
			}
			if kind != descriptor.KindRelease {
				if _, err := descriptor.Parse([]byte(doc)); err != nil {
					t.Errorf("%s block %d: %v\n%s", page, i, err, doc)
				}
				continue
			}
			r, err := descriptor.ParseRelease([]byte(doc))
			if err != nil {
				t.Errorf("%s block %d: %v\n%s", page, i, err, doc)
				continue
			}
			if r.Deploys[0].File == "" {
				if _, err := descriptor.ValidateReleaseMembers(r); err != nil {
					t.Errorf("%s block %d: %v", page, i, err)
				}
			}
		}
	}
}
