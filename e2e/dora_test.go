package e2e

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// doraTotal is the part of `manent dora -o json` the test reads.
type doraTotal struct {
	Total struct {
		DeploymentFrequency struct {
			DeploymentIDs []string `json:"deployment_ids"`
		} `json:"deployment_frequency"`
		LeadTime struct {
			Seconds *float64 `json:"seconds"`
		} `json:"lead_time"`
		ChangeFailRate struct {
			DeploymentIDs []string `json:"deployment_ids"`
		} `json:"change_fail_rate"`
		RecoveryTime struct {
			Recoveries []struct {
				Failed      string `json:"failed"`
				RecoveredBy string `json:"recovered_by"`
			} `json:"recoveries"`
		} `json:"failed_deployment_recovery_time"`
		ReworkRate struct {
			DeploymentIDs []string `json:"deployment_ids"`
		} `json:"deployment_rework_rate"`
	} `json:"total"`
}

func (r *rig) dora(token string, args ...string) doraTotal {
	r.t.Helper()
	out, errOut, code := r.manent(token, append([]string{"dora", "-o", "json"}, args...)...)
	if code != 0 {
		r.t.Fatalf("manent dora: exit %d\n%s", code, errOut)
	}
	var v doraTotal
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		r.t.Fatalf("dora JSON: %v\n%s", err, out)
	}
	return v
}

// Real deploys feed the DORA metrics: a remediation deploy counts as rework
// and marks the deploy before it as failed, recovered by itself; the lead
// time starts at the descriptor's commit time; a reader sees only the
// deploys it may read.
func TestDoraMetricsFromDeploys(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy"}, maxRecovery: 3})
	r.artifact("1.0.0")
	r.artifact("1.0.1")
	r.env("staging", "plugin: local\ntargets:\n  - path: targets/staging\n")
	r.srv.start()
	r.deployFollowed(r.descriptor("hello-1", "staging", "1.0.0", ""))
	committed := time.Now().UTC().Add(-2 * time.Hour).Format(time.RFC3339)
	r.deployFollowed(r.descriptor("hello-fix", "staging", "1.0.1", "commit: {time: \""+committed+"\"}\nremediation: true\n"))

	got := r.dora(tokenAdmin, "--application", "hello", "--environment", "staging")
	tot := got.Total
	if ids := tot.DeploymentFrequency.DeploymentIDs; !reflect.DeepEqual(ids, []string{"hello-1", "hello-fix"}) {
		t.Errorf("deployments %v", ids)
	}
	if ids := tot.ChangeFailRate.DeploymentIDs; !reflect.DeepEqual(ids, []string{"hello-1"}) {
		t.Errorf("failed %v", ids)
	}
	if ids := tot.ReworkRate.DeploymentIDs; !reflect.DeepEqual(ids, []string{"hello-fix"}) {
		t.Errorf("rework %v", ids)
	}
	if rec := tot.RecoveryTime.Recoveries; len(rec) != 1 || rec[0].Failed != "hello-1" || rec[0].RecoveredBy != "hello-fix" {
		t.Errorf("recoveries %+v", rec)
	}
	// the median of a deploy of seconds and one of two hours and more
	if s := tot.LeadTime.Seconds; s == nil || *s < 3600 {
		t.Errorf("lead time %v: the fix's starts at its commit, two hours ago", s)
	}
	if ids := r.dora(tokenOutsider).Total.DeploymentFrequency.DeploymentIDs; len(ids) != 0 {
		t.Errorf("an outsider reads %v", ids)
	}
	if _, _, code := r.manent(tokenAdmin, "dora", "--from", "2020-01-01"); code != 2 {
		t.Errorf("a range over 53 weeks: exit %d, want 2", code)
	}
}
