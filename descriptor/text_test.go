package descriptor_test

import (
	"reflect"
	"testing"

	"manent.dev/manent/descriptor"
)

// TestFreeText: the descriptor's free text is stored and shown as it is;
// bytes a reader's terminal or the database would take for something else
// are refused where they are.
func TestFreeText(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		errs []string
	}{
		{name: "multi-line description", doc: minimal + "description: \"line one\\n\\tline two\"\n"},
		{name: "NUL in the description", doc: minimal + "description: \"a\\0b\"\n",
			errs: []string{"description: must be text without control characters (other than new lines and tabs)"}},
		{name: "escape in the description", doc: minimal + "description: \"\\e[2J\"\n",
			errs: []string{"description: must be text without control characters (other than new lines and tabs)"}},
		{name: "C1 control in the description", doc: minimal + "description: \"a\\u009b2Jb\"\n",
			errs: []string{"description: must be text without control characters (other than new lines and tabs)"}},
		{name: "NUL in a label", doc: minimal + "labels: {team: \"a\\0b\"}\n", errs: []string{"labels.team: must not contain control characters"}},
		{name: "new line in a label", doc: minimal + "labels: {team: \"a\\nb\"}\n", errs: []string{"labels.team: must not contain control characters"}},
		{name: "multi-line parameter", doc: minimal + "deploy: {params: {script: \"a\\nb\"}}\n"},
		{name: "NUL in a parameter", doc: minimal + "deploy: {params: {script: \"a\\0b\"}}\n",
			errs: []string{"deploy.params.script: must be UTF-8 text without NUL characters"}},
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
