package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/postgres"
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

// The daily retention removes deploys older than retention.deployments but
// not what the DORA metrics read of them: `manent dora -o json` gives the
// same figures before and after a run, the removed deploys' IDs included,
// and another tenant's reader still sees none of them.
func TestDoraMetricsOutliveRetention(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy"}, maxRecovery: 3})
	r.artifact("1.0.0")
	r.artifact("1.0.1")
	r.env("staging", "plugin: local\ntargets:\n  - path: targets/staging\n")
	r.srv.start()
	// hello-0 and hello-1 are neither in service nor the one before: the
	// run removes them; hello-1 is the failure hello-fix remediates.
	r.deployFollowed(r.descriptor("hello-0", "staging", "1.0.0", ""))
	r.deployFollowed(r.descriptor("hello-1", "staging", "1.0.1", ""))
	r.deployFollowed(r.descriptor("hello-fix", "staging", "1.0.0", "remediation: true\n"))
	r.deployFollowed(r.descriptor("hello-3", "staging", "1.0.1", ""))

	ctx := context.Background()
	db, err := postgres.Open(ctx, r.srv.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	// A hundred days ago, past the default retention.deployments (90d).
	if _, err := db.Bun().ExecContext(ctx, `UPDATE manent.deployments SET created_at = created_at - interval '100 days',
		started_at = started_at - interval '100 days', finished_at = finished_at - interval '100 days'`); err != nil {
		t.Fatal(err)
	}
	from := time.Now().UTC().AddDate(0, 0, -120).Format(time.DateOnly)
	to := time.Now().UTC().AddDate(0, 0, -80).Format(time.DateOnly)
	metrics := func(token string) (doraTotal, string) {
		t.Helper()
		out, errOut, code := r.manent(token, "dora", "-o", "json", "--application", "hello", "--from", from, "--to", to)
		if code != 0 {
			t.Fatalf("manent dora: exit %d\n%s", code, errOut)
		}
		var v doraTotal
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("dora JSON: %v\n%s", err, out)
		}
		return v, out
	}
	before, beforeJSON := metrics(tokenAdmin)
	if ids := before.Total.DeploymentFrequency.DeploymentIDs; !reflect.DeepEqual(ids, []string{"hello-0", "hello-1", "hello-fix", "hello-3"}) {
		t.Fatalf("deployments before the run %v", ids)
	}
	if ids := before.Total.ChangeFailRate.DeploymentIDs; !reflect.DeepEqual(ids, []string{"hello-1"}) {
		t.Fatalf("failed before the run %v", ids)
	}

	store := postgres.NewStore(db)
	p, err := store.Purge(ctx, deploy.RetentionActor, deploy.Retention{Deployments: 90 * 24 * time.Hour, Dora: 730 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(p.Deployments)
	if want := []string{"hello-0", "hello-1"}; !slices.Equal(p.Deployments, want) {
		t.Fatalf("the run removed %v, want %v", p.Deployments, want)
	}
	if _, code := r.get("/api/v1/deployments/hello-1"); code != http.StatusNotFound {
		t.Errorf("GET of a removed deploy: %d, want 404", code)
	}
	if _, afterJSON := metrics(tokenAdmin); afterJSON != beforeJSON {
		t.Errorf("the metrics changed with the retention\nbefore %s\n after %s", beforeJSON, afterJSON)
	}
	if got, _ := metrics(tokenAcme); len(got.Total.DeploymentFrequency.DeploymentIDs) != 0 {
		t.Errorf("another tenant's reader sees %v", got.Total.DeploymentFrequency.DeploymentIDs)
	}
}
