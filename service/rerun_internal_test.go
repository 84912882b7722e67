package service

import (
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// TestRerunDescriptorDropsWhatBelongedToItsRun holds the rule of spec 001
// for promotions, redeploys and manual rollbacks: the dependencies of the
// source are not inherited, and its deployment imports go with them (with
// the targets and parameters read through them); imports of the release in
// service stay.
func TestRerunDescriptorDropsWhatBelongedToItsRun(t *testing.T) {
	at := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	src := deploy.Descriptor{
		ID: "web-staging-1", Application: "web", Environment: "staging", Labels: map[string]string{"team": "a"},
		Artifact:     deploy.Artifact{Name: "web", Version: "1.1.0"},
		After:        []string{"infra-42", "db-7"},
		AfterTimeout: time.Hour,
		Schedule:     &deploy.Schedule{At: &at},
		DryRun:       true,
		Imports: map[string]deploy.Import{
			"infra": {Deployment: "infra-42"},
			"net":   {Current: &deploy.CurrentImport{Application: "network"}},
		},
	}
	src.FreezeOverride = &deploy.FreezeOverride{Reason: "INC-1"}
	src.Deploy.TargetsFrom = []deploy.ImportRef{{Import: "infra", Export: "vms"}, {Import: "net", Export: "hosts"}}
	src.Deploy.ParamsFrom = map[string]deploy.ImportRef{"db_host": {Import: "infra", Export: "db"}, "gw": {Import: "net", Export: "gw"}}

	got := rerunDescriptor(src, "web-prod-1", "promotion of web-staging-1")
	want := src
	want.ID, want.Description = "web-prod-1", "promotion of web-staging-1"
	want.After, want.AfterTimeout, want.Schedule, want.FreezeOverride, want.DryRun = nil, 0, nil, nil, false
	want.Imports = map[string]deploy.Import{"net": {Current: &deploy.CurrentImport{Application: "network"}}}
	want.Deploy.TargetsFrom = []deploy.ImportRef{{Import: "net", Export: "hosts"}}
	want.Deploy.ParamsFrom = map[string]deploy.ImportRef{"gw": {Import: "net", Export: "gw"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rerunDescriptor:\n got %+v\nwant %+v", got, want)
	}
	// The source is left as it was: its maps are not shared with the copy.
	if len(src.Imports) != 2 || len(src.Deploy.ParamsFrom) != 2 || len(src.Deploy.TargetsFrom) != 2 {
		t.Fatalf("rerunDescriptor changed its source: %+v", src)
	}
}
