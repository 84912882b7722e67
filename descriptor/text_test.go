package descriptor_test

import (
	"reflect"
	"testing"

	"manent.dev/manent/descriptor"
)

// TestFreeText: the descriptor's free text is stored and shown as it is;
// what a reader's terminal or the database would take for something else
// (control characters, line separators, controls of bidirectional text
// that reorder what a reader sees) is refused where it is, by code point.
func TestFreeText(t *testing.T) {
	const (
		lines = "must be text without control characters (other than new lines and tabs): "
		line  = "must not contain control characters: "
	)
	tests := []struct {
		name string
		doc  string
		errs []string
	}{
		{name: "multi-line description", doc: minimal + "description: \"line one\\n\\tline two\"\n"},
		{name: "NUL in the description", doc: minimal + "description: \"a\\0b\"\n",
			errs: []string{"description: " + lines + "U+0000, a control character, at byte 1"}},
		{name: "escape in the description", doc: minimal + "description: \"\\e[2J\"\n",
			errs: []string{"description: " + lines + "U+001B, a control character, at byte 0"}},
		{name: "C1 control in the description", doc: minimal + "description: \"a\\u009b2Jb\"\n",
			errs: []string{"description: " + lines + "U+009B, a control character, at byte 1"}},
		{name: "bidi override in the description", doc: minimal + "description: \"ok \\u202Eexe.txt\"\n",
			errs: []string{"description: " + lines + "U+202E, a control of bidirectional text, at byte 3"}},
		{name: "bidi isolate in the description", doc: minimal + "description: \"a\\u2066b\"\n",
			errs: []string{"description: " + lines + "U+2066, a control of bidirectional text, at byte 1"}},
		{name: "line separator in the description", doc: minimal + "description: \"a\\u2028b\"\n",
			errs: []string{"description: " + lines + "U+2028, a line separator, at byte 1"}},
		{name: "letters of any script in the description", doc: minimal + "description: \"déploiement نشر デプロイ\"\n"},
		{name: "NUL in a label", doc: minimal + "labels: {team: \"a\\0b\"}\n", errs: []string{"labels.team: " + line + "U+0000, a control character, at byte 1"}},
		{name: "new line in a label", doc: minimal + "labels: {team: \"a\\nb\"}\n", errs: []string{"labels.team: " + line + "U+000A, a control character, at byte 1"}},
		{name: "paragraph separator in a label", doc: minimal + "labels: {team: \"a\\u2029b\"}\n",
			errs: []string{"labels.team: " + line + "U+2029, a paragraph separator, at byte 1"}},
		{name: "bidi mark in a target's label", doc: minimal + "deploy: {targets: [{host: web-1, labels: {zone: \"\\u200Feu\"}}]}\n",
			errs: []string{"deploy.targets[0].labels.zone: " + line + "U+200F, a control of bidirectional text, at byte 0"}},
		{name: "bidi override in a target's path", doc: minimal + "deploy: {targets: [{path: \"/srv/\\u202Eapp\"}]}\n",
			errs: []string{"deploy.targets[0].path: " + line + "U+202E, a control of bidirectional text, at byte 5"}},
		{name: "multi-line parameter", doc: minimal + "deploy: {params: {script: \"a\\n\\tb\"}}\n"},
		{name: "NUL in a parameter", doc: minimal + "deploy: {params: {script: \"a\\0b\"}}\n",
			errs: []string{"deploy.params.script: " + lines + "U+0000, a control character, at byte 1"}},
		{name: "carriage return in a parameter", doc: minimal + "deploy: {params: {script: \"a\\rb\"}}\n",
			errs: []string{"deploy.params.script: " + lines + "U+000D, a control character, at byte 1"}},
		{name: "bidi isolate in a step's parameter", doc: minimal + "stepParams: {deploy: {mode: \"\\u2069x\"}}\n",
			errs: []string{"stepParams.deploy.mode: " + lines + "U+2069, a control of bidirectional text, at byte 0"}},
		{name: "bidi override in a freeze override's reason", doc: minimal + "freezeOverride: {reason: \"hotfix \\u202Dx\"}\n",
			errs: []string{"freezeOverride.reason: " + line + "U+202D, a control of bidirectional text, at byte 7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := descriptor.Parse([]byte(tt.doc))
			if tt.errs == nil {
				if err != nil {
					t.Fatalf("valid descriptor refused: %v", err)
				}
				return
			}
			if got := fieldsOf(t, err); !reflect.DeepEqual(got, tt.errs) {
				t.Errorf("errors = %q, want %q", got, tt.errs)
			}
		})
	}
}
