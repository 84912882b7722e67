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
		Remediation:  true,
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
	want.Remediation = false
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

// TestPromotionAndRollbackDescriptors: a promotion drops the targets its
// source's descriptor names (those of the source's environment, spec 001),
// where a redeploy keeps them; a rollback is pinned to the digest its
// target downloaded, the bytes that were in service, unless it pinned one.
func TestPromotionAndRollbackDescriptors(t *testing.T) {
	src := &deploy.Deployment{ID: "web-staging-1", Environment: "staging", SHA256: "ab12", Artifact: deploy.Artifact{Version: "1.1.0"},
		Descriptor: deploy.Descriptor{ID: "web-staging-1", Application: "web", Environment: "staging",
			Artifact: deploy.Artifact{Name: "web", Version: "1.1.0"},
			Deploy:   deploy.DeploySection{Targets: []deploy.Target{{Path: "targets/staging"}}, Params: map[string]string{"k": "v"}}}}
	p := promotionDescriptor(src, "web-prod-1", "prod")
	if p.Environment != "prod" || p.Deploy.Targets != nil || p.Deploy.Params["k"] != "v" {
		t.Errorf("promotion: environment %s, targets %v, params %v", p.Environment, p.Deploy.Targets, p.Deploy.Params)
	}
	if len(src.Descriptor.Deploy.Targets) != 1 {
		t.Errorf("the promotion changed its source's targets: %v", src.Descriptor.Deploy.Targets)
	}
	r := rollbackDescriptor(src, "web-staging-rb", "web-staging-2")
	if r.Artifact.SHA256 != "ab12" || len(r.Deploy.Targets) != 1 {
		t.Errorf("rollback: sha256 %q, targets %v", r.Artifact.SHA256, r.Deploy.Targets)
	}
	src.Descriptor.Artifact.SHA256 = "cd34"
	if r := rollbackDescriptor(src, "web-staging-rb", "web-staging-2"); r.Artifact.SHA256 != "cd34" {
		t.Errorf("rollback of a pinned release: sha256 %q, want its own pin", r.Artifact.SHA256)
	}
}
