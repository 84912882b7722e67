package deploy

import (
	"slices"
	"testing"
)

func TestRolloutPassSelect(t *testing.T) {
	targets := []Target{{Path: "a"}, {Path: "b"}, {Path: "c"}, {Path: "d"}}
	tests := []struct {
		name    string
		batches []RolloutBatch
		want    []string
	}{
		{"an empty wave", nil, []string{}},
		{"in the targets' order, across batches", []RolloutBatch{{Targets: []string{"d"}}, {Targets: []string{"b", "a"}}}, []string{"a", "b", "d"}},
		{"a name the targets lack", []RolloutBatch{{Targets: []string{"c", "x"}}}, []string{"c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []string{}
			for _, tg := range (RolloutPass{Batches: tt.batches}).Select(targets) {
				got = append(got, tg.Name())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Select = %v, want %v", got, tt.want)
			}
		})
	}
}
