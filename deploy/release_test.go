package deploy

import (
	"slices"
	"testing"
)

func TestDependentsFirst(t *testing.T) {
	deploys := func(edges ...[]string) []ReleaseDeploy {
		out := make([]ReleaseDeploy, len(edges))
		for i, e := range edges {
			out[i] = ReleaseDeploy{Name: e[0], After: e[1:]}
		}
		return out
	}
	tests := []struct {
		name    string
		deploys []ReleaseDeploy
	}{
		{"independent", deploys([]string{"a"}, []string{"b"})},
		{"a chain in order", deploys([]string{"a"}, []string{"b", "a"}, []string{"c", "b"})},
		{"a chain written backwards", deploys([]string{"c", "b"}, []string{"b", "a"}, []string{"a"})},
		{"the shop, mixed", deploys([]string{"web", "api"}, []string{"db"}, []string{"worker", "db"}, []string{"api", "db"})},
		{"a diamond", deploys([]string{"b", "a"}, []string{"a"}, []string{"d", "b", "c"}, []string{"c", "a"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Release{Deploys: tt.deploys}
			got := r.DependentsFirst()
			names := make([]string, len(got))
			for i, d := range got {
				names[i] = d.Name
			}
			if len(got) != len(tt.deploys) {
				t.Fatalf("DependentsFirst = %v, want every deploy once", names)
			}
			for _, d := range tt.deploys {
				for _, dep := range d.After {
					if slices.Index(names, d.Name) > slices.Index(names, dep) {
						t.Errorf("DependentsFirst = %v: %s comes after %s, which it follows", names, d.Name, dep)
					}
				}
			}
		})
	}
}
