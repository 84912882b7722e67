package descriptor_test

import (
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

func TestFreezeOverride(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want *deploy.FreezeOverride
		// errs lists the expected field errors; none means valid.
		errs []string
	}{
		{name: "absent", doc: minimal},
		{name: "null is absent", doc: minimal + "freezeOverride:\n"},
		{name: "with a reason", doc: minimal + "freezeOverride: {reason: \"hotfix INC-42\"}\n", want: &deploy.FreezeOverride{Reason: "hotfix INC-42"}},
		{name: "512 characters", doc: minimal + "freezeOverride: {reason: " + strings.Repeat("é", 512) + "}\n", want: &deploy.FreezeOverride{Reason: strings.Repeat("é", 512)}},
		{name: "empty mapping", doc: minimal + "freezeOverride: {}\n", errs: []string{"freezeOverride.reason: is required"}},
		{name: "blank reason", doc: minimal + "freezeOverride: {reason: \"  \"}\n", errs: []string{"freezeOverride.reason: is required"}},
		{name: "too long", doc: minimal + "freezeOverride: {reason: " + strings.Repeat("x", 513) + "}\n", errs: []string{"freezeOverride.reason: must be at most 512 characters"}},
		{name: "control characters", doc: minimal + "freezeOverride: {reason: \"a\\u0007b\"}\n", errs: []string{"freezeOverride.reason: must not contain control characters: U+0007, a control character, at byte 1"}},
		{name: "a string instead of a mapping", doc: minimal + "freezeOverride: hotfix\n", errs: []string{"freezeOverride: must be a mapping"}},
		{name: "unknown key", doc: minimal + "freezeOverride: {reason: x, by: me}\n", errs: []string{"freezeOverride.by: unknown field"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := descriptor.Parse([]byte(tt.doc))
			if tt.errs != nil {
				if got := fieldsOf(t, err); !reflect.DeepEqual(got, tt.errs) {
					t.Errorf("errors = %q, want %q", got, tt.errs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.FreezeOverride, tt.want) {
				t.Errorf("FreezeOverride = %+v, want %+v", d.FreezeOverride, tt.want)
			}
		})
	}
}
