package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const promoteGovernance = `  approvals:
    - name: prod
      match: {application: hello, environment: prod}
  promotion:
    - name: staging-first
      match: {application: hello, environment: prod}
      from: staging
    - name: qa-after-staging
      match: {application: hello, environment: qa}
      from: staging
  freezes:
    - name: always
      match: {environment: frozen}
      absolute:
        - {from: "2020-01-01T00:00:00Z", to: "2099-01-01T00:00:00Z"}
`

// promotedStatus is the part of the status JSON a promotion adds to.
type promotedStatus struct {
	ID           string  `json:"id"`
	Environment  string  `json:"environment"`
	State        string  `json:"state"`
	PromotedFrom *string `json:"promoted_from"`
	Artifact     struct {
		Version string  `json:"version"`
		SHA256  *string `json:"sha256"`
	} `json:"artifact"`
	After      json.RawMessage `json:"after"`
	Governance *struct {
		Promotion *struct {
			From        string `json:"from"`
			SatisfiedBy string `json:"satisfied_by"`
		} `json:"promotion"`
	} `json:"governance"`
}

func newPromoteRig(t *testing.T) *rig {
	t.Helper()
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy"}, maxRecovery: 3, governance: promoteGovernance,
		pipeline: "  descriptor_policy: {params: [base_release]}\n"})
	r.srv.start()
	for _, v := range []string{"1.0.0", "1.1.0", "1.2.0"} {
		r.artifact(v)
	}
	for _, env := range []string{"staging", "prod", "qa", "frozen", "dev"} {
		r.env(env, "plugin: local\ntargets: [{path: targets/"+env+"}]\n")
	}
	return r
}

// TestPromote promotes through the CLI on a real server: the promotion is
// a submission of its own (governance of the target, its permissions),
// without the source's after, recorded as promoted from it and audited.
func TestPromote(t *testing.T) {
	r := newPromoteRig(t)
	r.deployFollowed(r.descriptor("p-base", "staging", "1.0.0", "exports:\n  rel: {from: deploy.release, pattern: '[0-9.]+'}\n"))
	r.deployFollowed(r.descriptor("p-stg", "staging", "1.1.0", "after: [p-base]\nimports:\n  base: {deployment: p-base}\ndeploy:\n  paramsFrom:\n    base_release: {import: base, export: rel}\n"))
	r.deployFollowed(r.descriptor("p-dev", "dev", "1.2.0", ""))

	promote := func(token string, args ...string) (promotedStatus, string, int) {
		t.Helper()
		out, errOut, code := r.manent(token, append([]string{"promote"}, args...)...)
		var st promotedStatus
		if code == 0 && strings.Contains(strings.Join(args, " "), "-o json") {
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatalf("promote %v: status JSON: %v\n%s", args, err, out)
			}
		}
		return st, errOut, code
	}

	// Into prod: the rules of prod apply, the promotion from staging is
	// satisfied by the source itself, and it waits for an approval.
	prod, errOut, code := promote(tokenCI, "p-stg", "--to", "prod", "--id", "p-prod", "--no-wait", "-o", "json")
	if code != 0 {
		t.Fatalf("promote p-stg --to prod: exit %d\n%s", code, errOut)
	}
	if prod.ID != "p-prod" || prod.Environment != "prod" || prod.State != "AWAITING_APPROVAL" {
		t.Errorf("promotion to prod = %+v, want p-prod in prod AWAITING_APPROVAL", prod)
	}
	if prod.PromotedFrom == nil || *prod.PromotedFrom != "p-stg" {
		t.Errorf("promoted_from = %v, want p-stg", prod.PromotedFrom)
	}
	if len(prod.After) != 0 {
		t.Errorf("the promotion inherited the after of its source: %s", prod.After)
	}
	if g := prod.Governance; g == nil || g.Promotion == nil || g.Promotion.From != "staging" || g.Promotion.SatisfiedBy != "p-stg" {
		t.Errorf("governance of the promotion = %+v, want the promotion from staging satisfied by p-stg", g)
	}
	// Neither its after nor its deployment import came with it.
	imp := r.gql(tokenCI, `{ deployment(id: "p-prod") { after { status } imports { name } } source: deployment(id: "p-stg") { imports { name } } }`, nil)
	if imp.code() != "" || string(imp.Data["deployment"]) != `{"after":null,"imports":[]}` || string(imp.Data["source"]) != `{"imports":[{"name":"base"}]}` {
		t.Errorf("after and imports of the promotion: %+v %s, of its source %s", imp, imp.Data["deployment"], imp.Data["source"])
	}
	// The same promotion again is the same deploy.
	if again, errOut, code := promote(tokenCI, "p-stg", "--to", "prod", "--id", "p-prod", "--no-wait", "-o", "json"); code != 0 || again.ID != "p-prod" {
		t.Errorf("the same promotion again: exit %d %+v\n%s", code, again, errOut)
	}

	// Into qa, followed to its end like deploy, with the same bytes.
	qa, errOut, code := promote(tokenCI, "p-stg", "--to", "qa", "-o", "json", "--timeout", "2m")
	if code != 0 || qa.State != "SUCCESS" {
		t.Fatalf("promote p-stg --to qa: exit %d %+v\n%s", code, qa, errOut)
	}
	body, _ := r.get("/api/v1/deployments/p-stg")
	var src promotedStatus
	if err := json.Unmarshal(body, &src); err != nil || src.Artifact.SHA256 == nil {
		t.Fatalf("status of p-stg: %v %s", err, body)
	}
	if qa.Artifact.SHA256 == nil || *qa.Artifact.SHA256 != *src.Artifact.SHA256 {
		t.Errorf("the promotion to qa deployed %v, p-stg %s", qa.Artifact.SHA256, *src.Artifact.SHA256)
	}

	// Where it can go next: the environments whose promotion rules start
	// from staging, where the viewer may submit.
	for tok, want := range map[string]string{tokenCI: `["prod","qa"]`, tokenReader: `[]`} {
		a := r.gql(tok, `{ deployment(id: "p-stg") { promotionTargets } }`, nil)
		var d struct {
			PromotionTargets json.RawMessage `json:"promotionTargets"`
		}
		if a.code() != "" || json.Unmarshal(a.Data["deployment"], &d) != nil || string(d.PromotionTargets) != want {
			t.Errorf("promotionTargets of p-stg as %s = %s (%+v), want %s", tok, d.PromotionTargets, a, want)
		}
	}

	refusals := []struct {
		name  string
		token string
		args  []string
		code  int
		says  string
	}{
		{"without --to", tokenCI, []string{"p-stg"}, 2, "--to is required"},
		{"the mandatory promotion of prod", tokenCI, []string{"p-dev", "--to", "prod"}, 2, "has not succeeded in staging"},
		{"a freeze of the target", tokenCI, []string{"p-stg", "--to", "frozen"}, 2, "frozen"},
		{"a deploy that did not succeed", tokenCI, []string{"p-prod", "--to", "qa"}, 2, "did not succeed (AWAITING_APPROVAL)"},
		{"its own environment", tokenCI, []string{"p-stg", "--to", "staging"}, 2, "redeploy it"},
		{"an ID taken by another deploy", tokenCI, []string{"p-stg", "--to", "qa", "--id", "p-base"}, 2, "already in use"},
		{"no deployment.submit on the target", tokenReader, []string{"p-stg", "--to", "prod"}, 3, "deployment.submit"},
		{"a source the caller may not read", tokenOutsider, []string{"p-stg", "--to", "prod"}, 2, "not found"},
		{"a source in another tenant", tokenAcme, []string{"p-stg", "--to", "prod"}, 2, "not found"},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := promote(c.token, c.args...)
			if code != c.code || !strings.Contains(errOut, c.says) {
				t.Errorf("promote %v: exit %d, want %d saying %q\n%s", c.args, code, c.code, c.says, errOut)
			}
		})
	}

	// The Environments matrix asks the same of the release in service.
	for tok, want := range map[string]string{
		tokenCI:    `{"environment":"staging","promotionTargets":["prod","qa"],"canRollback":false}`,
		tokenAdmin: `{"environment":"staging","promotionTargets":["prod","qa"],"canRollback":true}`,
	} {
		a := r.gql(tok, `{ inventory { environment promotionTargets canRollback } }`, nil)
		var entries []json.RawMessage
		if a.code() != "" || json.Unmarshal(a.Data["inventory"], &entries) != nil {
			t.Fatalf("inventory as %s: %+v", tok, a)
		}
		if !slices.ContainsFunc(entries, func(e json.RawMessage) bool { return string(e) == want }) {
			t.Errorf("inventory as %s = %s, want an entry %s", tok, a.Data["inventory"], want)
		}
	}

	// Unreadable is missing, byte for byte.
	_, hidden, _ := promote(tokenOutsider, "p-stg", "--to", "prod")
	_, missing, _ := promote(tokenOutsider, "p-none", "--to", "prod")
	if strings.ReplaceAll(missing, "p-none", "p-stg") != hidden {
		t.Errorf("an unreadable source answers %q, a missing one %q", hidden, missing)
	}

	entries := func(action string) []auditNode {
		a := r.gql(tokenAdmin, `query($a: String!) { auditEntries(filter: {action: $a}) { nodes { actor action target details } } }`,
			map[string]any{"a": action})
		var page struct {
			Nodes []auditNode `json:"nodes"`
		}
		if a.code() != "" || json.Unmarshal(a.Data["auditEntries"], &page) != nil {
			t.Fatalf("auditEntries(%s): %+v", action, a)
		}
		return page.Nodes
	}
	done := entries("deployment.promote")
	if i := slices.IndexFunc(done, func(n auditNode) bool { return n.Target == "p-prod" }); i < 0 ||
		done[i].Actor != "token:"+tokenCI || done[i].Details["from"] != "p-stg" || done[i].Details["environment"] != "prod" {
		t.Errorf("deployment.promote entries = %+v, want p-prod by demo-ci from p-stg", done)
	}
	refused := entries("deployment.promote.refused")
	if i := slices.IndexFunc(refused, func(n auditNode) bool { return n.Actor == "token:"+tokenReader }); i < 0 ||
		refused[i].Target != "p-stg" || refused[i].Details["code"] != "FORBIDDEN" {
		t.Errorf("deployment.promote.refused entries = %+v, want demo-reader's FORBIDDEN on p-stg", refused)
	}
}

// TestApprovalContextAndEnvironment reads, through GraphQL on a real
// server, what an approver of a promotion sees and an environment's page.
func TestApprovalContextAndEnvironment(t *testing.T) {
	r := newPromoteRig(t)
	r.deployFollowed(r.descriptor("c-stg1", "staging", "1.1.0", ""))
	if _, errOut, code := r.manent(tokenCI, "promote", "c-stg1", "--to", "prod", "--id", "c-prod1", "--no-wait"); code != 0 {
		t.Fatalf("promote c-stg1: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := r.manent(tokenAdmin, "approve", "c-prod1"); code != 0 {
		t.Fatalf("approve c-prod1: exit %d\n%s", code, errOut)
	}
	if st := r.followToEnd("c-prod1"); st.State != "SUCCESS" {
		t.Fatalf("c-prod1 ended %s", st.State)
	}
	if a := r.gql(tokenAdmin, `{ deployment(id: "c-prod1") { approval { status remaining } } }`, nil); string(a.Data["deployment"]) !=
		`{"approval":{"status":"approved","remaining":0}}` {
		t.Errorf("the approval of c-prod1 once approved: %+v %s", a, a.Data["deployment"])
	}
	r.deployFollowed(r.descriptor("c-stg2", "staging", "1.2.0", ""))
	if _, errOut, code := r.manent(tokenCI, "promote", "c-stg2", "--to", "prod", "--id", "c-prod2", "--no-wait"); code != 0 {
		t.Fatalf("promote c-stg2: exit %d\n%s", code, errOut)
	}

	a := r.gql(tokenAdmin, `{ deployment(id: "c-prod2") { promotedFrom approval { remaining } approvalContext {
		inService { deploymentId artifact { version } deployedBy deployedAt }
		proposed { version } proposedSha256
		promotionEvidence { environment deploymentId version finishedAt }
		explanation approvers { required holders excluded } } } }`, nil)
	var got struct {
		PromotedFrom string `json:"promotedFrom"`
		Approval     struct {
			Remaining int `json:"remaining"`
		} `json:"approval"`
		ApprovalContext struct {
			InService *struct {
				DeploymentID string `json:"deploymentId"`
				Artifact     struct{ Version string }
				DeployedBy   string  `json:"deployedBy"`
				DeployedAt   *string `json:"deployedAt"`
			} `json:"inService"`
			Proposed          struct{ Version string }
			ProposedSha256    *string `json:"proposedSha256"`
			PromotionEvidence []struct {
				Environment  string  `json:"environment"`
				DeploymentID *string `json:"deploymentId"`
				Version      string  `json:"version"`
			} `json:"promotionEvidence"`
			Explanation string `json:"explanation"`
			Approvers   struct {
				Required int      `json:"required"`
				Holders  []string `json:"holders"`
				Excluded string   `json:"excluded"`
			} `json:"approvers"`
		} `json:"approvalContext"`
	}
	if a.code() != "" || json.Unmarshal(a.Data["deployment"], &got) != nil {
		t.Fatalf("approval context: %+v", a)
	}
	c := got.ApprovalContext
	if got.PromotedFrom != "c-stg2" || got.Approval.Remaining != 1 {
		t.Errorf("promotedFrom = %q, remaining approvals %d, want c-stg2 and 1", got.PromotedFrom, got.Approval.Remaining)
	}
	if c.InService == nil || c.InService.DeploymentID != "c-prod1" || c.InService.Artifact.Version != "1.1.0" ||
		c.InService.DeployedBy != "token:"+tokenCI || c.InService.DeployedAt == nil {
		t.Errorf("in service = %+v, want c-prod1 1.1.0 deployed by demo-ci", c.InService)
	}
	if c.Proposed.Version != "1.2.0" || c.ProposedSha256 == nil {
		t.Errorf("proposed = %+v %v, want 1.2.0 with the digest staging downloaded", c.Proposed, c.ProposedSha256)
	}
	if len(c.PromotionEvidence) != 1 || c.PromotionEvidence[0].Environment != "staging" ||
		c.PromotionEvidence[0].DeploymentID == nil || *c.PromotionEvidence[0].DeploymentID != "c-stg2" {
		t.Errorf("promotion evidence = %+v, want c-stg2 in staging", c.PromotionEvidence)
	}
	want := "needs 1 approval from an identity other than the requester within 24h; staging must have run hello 1.2.0 successfully — it did: c-stg2"
	if c.Explanation != want {
		t.Errorf("explanation = %q, want %q", c.Explanation, want)
	}
	if c.Approvers.Required != 1 || !slices.Contains(c.Approvers.Holders, "admin") || c.Approvers.Excluded != "token:"+tokenCI {
		t.Errorf("approvers = %+v, want 1 among the holders admin, never demo-ci", c.Approvers)
	}

	e := r.gql(tokenAdmin, `{ environment(application: "hello", environment: "prod") { tenant inService { deploymentId }
		history(first: 10) { nodes { id state promotedFrom durationMs } } lastFailure { deploymentId } canRollback } }`, nil)
	var env struct {
		Tenant    string `json:"tenant"`
		InService *struct {
			DeploymentID string `json:"deploymentId"`
		} `json:"inService"`
		History struct {
			Nodes []struct {
				ID           string `json:"id"`
				State        string `json:"state"`
				PromotedFrom string `json:"promotedFrom"`
				DurationMs   *int   `json:"durationMs"`
			} `json:"nodes"`
		} `json:"history"`
		CanRollback bool `json:"canRollback"`
	}
	if e.code() != "" || json.Unmarshal(e.Data["environment"], &env) != nil {
		t.Fatalf("environment: %+v", e)
	}
	if env.Tenant != "demo" || env.InService == nil || env.InService.DeploymentID != "c-prod1" {
		t.Errorf("environment prod = %+v, want c-prod1 in service in demo", env)
	}
	ids := []string{}
	for _, n := range env.History.Nodes {
		ids = append(ids, n.ID+":"+n.State+":"+n.PromotedFrom)
	}
	if !slices.Equal(ids, []string{"c-prod2:AWAITING_APPROVAL:c-stg2", "c-prod1:SUCCESS:c-stg1"}) || env.History.Nodes[1].DurationMs == nil {
		t.Errorf("history of prod = %v, want c-prod2 then c-prod1 with its duration", ids)
	}
	// Nothing succeeded in prod before c-prod1: nothing to roll back to.
	if env.CanRollback {
		t.Errorf("canRollback of prod with one release = true")
	}
	// Another team reads nothing of it.
	if o := r.gql(tokenOutsider, `{ environment(application: "hello", environment: "prod") { tenant } }`, nil); o.code() != "" ||
		string(o.Data["environment"]) != "null" {
		t.Errorf("environment as an outsider: %+v %s", o, o.Data["environment"])
	}
}

// TestAffordancesAgreeWithMutations asks every identity whether it may
// take each action, then takes it: the field and the mutation never
// disagree.
func TestAffordancesAgreeWithMutations(t *testing.T) {
	r := newPromoteRig(t)
	r.deployFollowed(r.descriptor("f-base", "staging", "1.0.0", ""))
	r.deployFollowed(r.descriptor("f-stg", "staging", "1.1.0", ""))
	release := `apiVersion: manent/v1
kind: Release
id: f-release
deploys:
  - name: prod
    descriptor:
      apiVersion: manent/v1
      application: hello
      environment: prod
      artifact: {type: application, name: hello, version: 1.1.0, source: "file:hello-1.1.0.tar.gz"}
`
	if a := r.gql(tokenCI, `mutation($d: String!) { submitRelease(descriptor: $d) { id } }`, map[string]any{"d": release}); a.code() != "" {
		t.Fatalf("submit the release: %+v", a)
	}
	schedule, err := os.ReadFile(r.descriptor("f-nightly", "staging", "1.1.0", "schedule:\n  cron: \"0 3 * * *\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a := r.gql(tokenCI, `mutation($d: String!) { submitDeployment(descriptor: $d) { deployment { id } } }`,
		map[string]any{"d": string(schedule)}); a.code() != "" {
		t.Fatalf("submit the schedule: %+v", a)
	}

	type action struct {
		name     string
		field    string // a query answering {"x": bool} under data
		mutation string
		// once: the mutation can succeed only once (it ends its target):
		// the identities the field allows take it last, one of them.
		once bool
	}
	actions := []action{
		{"promote", `{ deployment(id: "f-stg") { x: canPromote(to: "prod") } }`, `mutation { promote(id: "f-stg", to: "prod") { id } }`, false},
		{"redeploy", `{ deployment(id: "f-stg") { x: canRedeploy } }`, `mutation { redeploy(id: "f-stg") { id } }`, false},
		{"rollback to", `{ deployment(id: "f-base") { x: canRollbackTo } }`, `mutation { rollback(application: "hello", environment: "staging", to: "f-base") { id } }`, false},
		{"roll back the environment", `{ environment(application: "hello", environment: "staging") { x: canRollback } }`, `mutation { rollback(application: "hello", environment: "staging") { id } }`, false},
		{"cancel the release", `{ release(id: "f-release") { x: canCancel } }`, `mutation { cancelRelease(id: "f-release") { id } }`, true},
		{"delete the schedule", `{ schedules { name x: canDelete } }`, `mutation { deleteSchedule(name: "f-nightly") }`, true},
	}
	identities := []string{tokenReader, tokenOutsider, tokenAcme, tokenCI, tokenAdmin}
	field := func(token, query string) bool {
		a := r.gql(token, query, nil)
		// What the identity may not read offers nothing.
		if a.code() == "NOT_FOUND" {
			return false
		}
		if a.code() != "" {
			t.Fatalf("%s as %s: %+v", query, token, a)
		}
		for _, raw := range a.Data {
			var one struct{ X bool }
			if json.Unmarshal(raw, &one) == nil {
				return one.X
			}
			var list []struct{ X bool }
			if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
				return list[0].X
			}
		}
		return false
	}
	// Every field first: the mutations change what the later fields would say.
	allowed := map[string]map[string]bool{}
	for _, ac := range actions {
		allowed[ac.name] = map[string]bool{}
		for _, tok := range identities {
			allowed[ac.name][tok] = field(tok, ac.field)
		}
	}
	for _, ac := range actions {
		t.Run(ac.name, func(t *testing.T) {
			var yes []string
			for _, tok := range identities {
				if allowed[ac.name][tok] {
					yes = append(yes, tok)
					continue
				}
				if a := r.gql(tok, ac.mutation, nil); a.code() == "" {
					t.Errorf("%s: the field says no to %s, the mutation let it", ac.name, tok)
				}
			}
			if len(yes) == 0 {
				t.Fatalf("%s: no identity may take it", ac.name)
			}
			if ac.once {
				yes = yes[:1]
			}
			for _, tok := range yes {
				if a := r.gql(tok, ac.mutation, nil); a.code() != "" {
					t.Errorf("%s: the field says yes to %s, the mutation refused: %+v", ac.name, tok, a)
				}
			}
		})
	}
	// The table holds what RBAC says.
	want := map[string][]string{
		"promote":                   {tokenCI, tokenAdmin},
		"redeploy":                  {tokenReader, tokenCI, tokenAdmin},
		"rollback to":               {tokenAdmin},
		"roll back the environment": {tokenAdmin},
		"cancel the release":        {tokenCI, tokenAdmin},
		"delete the schedule":       {tokenReader, tokenCI, tokenAdmin},
	}
	for name, toks := range want {
		var got []string
		for _, tok := range identities {
			if allowed[name][tok] {
				got = append(got, tok)
			}
		}
		if !slices.Equal(got, toks) {
			t.Errorf("%s is offered to %v, want %v", name, got, toks)
		}
	}
}

// TestReleaseMembersSayWhereTheyRan reads a release that ended ERROR
// through GraphQL: each deploy says its application and environment, the
// failed one the step it failed in, and a deploy of it knows its release.
func TestReleaseMembersSayWhereTheyRan(t *testing.T) {
	r := newPromoteRig(t)
	path := filepath.Join(r.dir, "deploys", "m-release.yml")
	write(t, path, `apiVersion: manent/v1
kind: Release
id: m-release
onFailure: continue
deploys:
  - name: ok
    descriptor:
      apiVersion: manent/v1
      application: hello
      environment: staging
      artifact: {type: application, name: hello, version: 1.1.0, source: "file:hello-1.1.0.tar.gz"}
  - name: bad
    descriptor:
      apiVersion: manent/v1
      application: hello
      environment: dev
      artifact: {type: application, name: hello, version: 9.9.9, source: "file:hello-9.9.9.tar.gz"}
`)
	if _, errOut, code := r.manent(tokenCI, "release", "submit", "-f", path, "--timeout", "2m"); code != 1 {
		t.Fatalf("release submit: exit %d, want 1 (a deploy failed)\n%s", code, errOut)
	}
	a := r.gql(tokenCI, `{ deployment(id: "m-release.ok") { memberOf { id state deploys { name application environment state failedStep } } } }`, nil)
	want := `{"memberOf":{"id":"m-release","state":"ERROR","deploys":[` +
		`{"name":"ok","application":"hello","environment":"staging","state":"SUCCESS","failedStep":null},` +
		`{"name":"bad","application":"hello","environment":"dev","state":"ERROR","failedStep":"artifacts"}]}}`
	if a.code() != "" || string(a.Data["deployment"]) != want {
		t.Errorf("the release of m-release.ok: %+v\n got %s\nwant %s", a, a.Data["deployment"], want)
	}
	// A deploy that belongs to no release belongs to none.
	r.deployFollowed(r.descriptor("m-alone", "staging", "1.0.0", ""))
	if a := r.gql(tokenCI, `{ deployment(id: "m-alone") { memberOf { id } } }`, nil); string(a.Data["deployment"]) != `{"memberOf":null}` {
		t.Errorf("memberOf of a deploy of no release: %s", a.Data["deployment"])
	}
}
