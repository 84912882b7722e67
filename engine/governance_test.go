package engine_test

import (
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

func TestFreezeRefusalAndOverride(t *testing.T) {
	now := time.Now().UTC()
	e := newEnvWith(t, envOptions{rules: true, engineYAML: `governance:
  freezes:
    - name: sale
      match: {environment: prod}
      absolute:
        - {from: "` + now.Add(-time.Hour).Format(time.RFC3339) + `", to: "` + now.Add(time.Hour).Format(time.RFC3339) + `"}
`})
	_, err := e.eng.Submit(e.ctx, []byte(descriptorFor("fz-1", "app", "prod")), deploy.SubmitOptions{})
	if deploy.ErrorCode(err) != deploy.EUNPROCESSABLE || !strings.Contains(deploy.ErrorMessage(err), "sale") {
		t.Fatalf("submit in a freeze: %v, want UNPROCESSABLE naming the window", err)
	}
	override := descriptorFor("fz-2", "app", "prod") + "freezeOverride: {reason: \"hotfix for INC-42\"}\n"
	// Without deployment.freeze-override the override is ignored: refused as
	// any deploy in the freeze, saying why.
	_, err = e.eng.Submit(e.ctx, []byte(override), deploy.SubmitOptions{})
	if deploy.ErrorCode(err) != deploy.EUNPROCESSABLE || !strings.Contains(deploy.ErrorMessage(err), "freezeOverride: ignored") {
		t.Fatalf("override without the permission: %v, want UNPROCESSABLE", err)
	}
	// With it the deploy is accepted, and runs inside the freeze.
	sub, err := e.eng.Submit(as(e, "token:admin"), []byte(override), deploy.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f := sub.Deployment.Decision.Freeze; f == nil || !f.Overridden || f.Window != "sale" {
		t.Fatalf("decision = %+v", sub.Deployment.Decision)
	}
	e.waitState("fz-2", deploy.StateSuccess)
	// Staging is not frozen.
	e.submit("fz-3", "app", "staging")
	e.waitState("fz-3", deploy.StateSuccess)
	// Dry-runs are not subject to governance.
	if _, err := e.eng.Submit(e.ctx, []byte(descriptorFor("fz-4", "app", "prod")+"dryRun: true\n"), deploy.SubmitOptions{}); err != nil {
		t.Fatalf("dry-run in a freeze: %v", err)
	}
}

func TestMandatoryPromotion(t *testing.T) {
	e := newEnvWith(t, envOptions{rules: true, engineYAML: `governance:
  promotion:
    - name: prod-after-staging
      match: {environment: prod}
      from: staging
      in_service: true
`})
	_, err := e.eng.Submit(e.ctx, []byte(descriptorFor("pr-1", "app", "prod")), deploy.SubmitOptions{})
	if deploy.ErrorCode(err) != deploy.EUNPROCESSABLE || !strings.Contains(deploy.ErrorMessage(err), "staging") {
		t.Fatalf("promotion missing: %v, want UNPROCESSABLE saying what is missing", err)
	}
	e.submit("pr-staging", "app", "staging")
	e.waitState("pr-staging", deploy.StateSuccess)
	sub, err := e.eng.Submit(e.ctx, []byte(descriptorFor("pr-2", "app", "prod")), deploy.SubmitOptions{})
	if err != nil {
		t.Fatalf("promotion satisfied: %v", err)
	}
	if p := sub.Deployment.Decision.Promotion; p == nil || p.From != "staging" || p.SatisfiedBy != "pr-staging" {
		t.Fatalf("decision = %+v", sub.Deployment.Decision)
	}
	e.waitState("pr-2", deploy.StateSuccess)
}
