package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPromotionDoesNotReuseTheSourceEnvironmentsTargets: spec 001 says a
// promotion "drops the deployment imports together with after: the targets
// of another environment must not be reused. Its targets come from the
// environment configuration". Where descriptor_policy.targets lets a
// descriptor name its targets and the environment configuration names
// none, a promotion of a staging deploy keeps the staging targets of its
// descriptor (deploy.targets): the "prod" deploy runs on staging's hosts,
// under prod's name, with prod's approvals recorded as if it were prod.
func TestPromotionDoesNotReuseTheSourceEnvironmentsTargets(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy"}, maxRecovery: 3,
		pipeline: "  descriptor_policy: {targets: true}\n"})
	r.srv.start()
	r.artifact("1.1.0")
	for _, env := range []string{"edge-stg", "edge-prd"} {
		r.env(env, "plugin: local\n")
	}
	r.deployFollowed(r.descriptor("t-stg", "edge-stg", "1.1.0", "deploy:\n  targets: [{path: targets/edge-stg}]\n"))

	out, errOut, code := r.manent(tokenCI, "promote", "t-stg", "--to", "edge-prd", "--id", "t-prd", "--no-wait")
	if code != 0 {
		// Refusing it (no target in edge-prd) is one way to keep the rule.
		if strings.Contains(errOut, "target") {
			return
		}
		t.Fatalf("promote t-stg --to edge-prd: exit %d\n%s%s", code, out, errOut)
	}
	a := r.gql(tokenAdmin, `{ deployment(id: "t-prd") { environment effective { targets { path } } } }`, nil)
	var d struct {
		Environment string `json:"environment"`
		Effective   struct {
			Targets []struct {
				Path string `json:"path"`
			} `json:"targets"`
		} `json:"effective"`
	}
	if a.code() != "" || json.Unmarshal(a.Data["deployment"], &d) != nil {
		t.Fatalf("t-prd: %+v", a)
	}
	for _, tg := range d.Effective.Targets {
		if strings.Contains(tg.Path, "edge-stg") {
			t.Errorf("the promotion to %s deploys to the source environment's target %s", d.Environment, tg.Path)
		}
	}
}
