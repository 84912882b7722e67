package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// schemaMutations lists the mutations of the GraphQL schema, as the server
// serves them: a mutation added there without a case below fails the test.
func schemaMutations(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot(), "graph", "schema", "*.graphqls"))
	if err != nil || len(files) == 0 {
		t.Fatalf("schema files: %v %v", files, err)
	}
	var sources []*ast.Source
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, &ast.Source{Name: f, Input: string(b)})
	}
	schema, err := gqlparser.LoadSchema(sources...)
	if err != nil {
		t.Fatalf("load the schema: %v", err)
	}
	var names []string
	for _, f := range schema.Mutation.Fields {
		if f.Name != "_noop" {
			names = append(names, f.Name)
		}
	}
	return names
}

// gqlAnswer is a GraphQL answer: its data and the code of its first error.
type gqlAnswer struct {
	Data   map[string]json.RawMessage `json:"data"`
	Errors []struct {
		Extensions struct {
			Code string `json:"code"`
		} `json:"extensions"`
	} `json:"errors"`
}

func (a gqlAnswer) code() string {
	if len(a.Errors) == 0 {
		return ""
	}
	return a.Errors[0].Extensions.Code
}

func (r *rig) gql(token, query string, vars map[string]any) gqlAnswer {
	r.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	b, status := r.postAs(token, "/graphql", "application/json", body)
	var a gqlAnswer
	if status != 200 || json.Unmarshal(b, &a) != nil {
		r.t.Fatalf("%s: %d %s", query, status, b)
	}
	return a
}

// auditNode is an entry as auditEntries gives it.
type auditNode struct {
	Actor   string         `json:"actor"`
	Action  string         `json:"action"`
	Target  string         `json:"target"`
	Details map[string]any `json:"details"`
}

// TestEveryMutationIsAudited drives every mutation of the schema through
// the real server and checks that it left its entry in the audit log, with
// the identity, the target and the outcome: what was done, or what was
// refused (the action with ".refused", the code the caller got).
func TestEveryMutationIsAudited(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy"}, maxRecovery: 3})
	r.srv.start()
	r.artifact("1.0.0")
	r.env("staging", "plugin: local\ntargets: [{path: targets/staging}]\n")
	r.deployFollowed(r.descriptor("aa-1", "staging", "1.0.0", ""))

	release := `apiVersion: manent/v1
kind: Release
id: aa-release
deploys:
  - name: staging
    descriptor:
      apiVersion: manent/v1
      application: hello
      environment: staging
      artifact: {type: application, name: hello, version: 1.0.0, source: "file:hello-1.0.0.tar.gz"}
`
	other := `apiVersion: manent/v1
id: aa-other
application: other
environment: staging
artifact: {type: application, name: other, version: 1.0.0, source: "file:hello-1.0.0.tar.gz"}
`
	schedule, err := os.ReadFile(r.descriptor("aa-nightly", "staging", "1.0.0", "schedule:\n  cron: \"0 3 * * *\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	const ci = "token:" + tokenCI

	// Each case runs its mutation and says which entry it must have left.
	// demo-ci submits and cancels on hello, and holds neither approve nor
	// rollback: its denied attempts are the refusals.
	type want struct{ action, target, code string }
	cases := map[string]func(t *testing.T) want{
		"submitDeployment": func(t *testing.T) want {
			if a := r.gql(tokenCI, `mutation($d: String!) { submitDeployment(descriptor: $d) { deployment { id } } }`,
				map[string]any{"d": other}); a.code() != "FORBIDDEN" {
				t.Fatalf("submit on other as demo-ci: %+v", a)
			}
			return want{"deployment.submit.refused", "aa-other", "FORBIDDEN"}
		},
		"cancelDeployment": func(t *testing.T) want {
			if a := r.gql(tokenCI, `mutation { cancelDeployment(id: "aa-1") { id } }`, nil); a.code() != "CONFLICT" {
				t.Fatalf("cancel an ended deploy: %+v", a)
			}
			return want{"deployment.cancel.refused", "aa-1", "CONFLICT"}
		},
		"approveDeployment": func(t *testing.T) want {
			if a := r.gql(tokenCI, `mutation { approveDeployment(id: "aa-1") { id } }`, nil); a.code() != "FORBIDDEN" {
				t.Fatalf("approve as demo-ci: %+v", a)
			}
			return want{"deployment.approve.refused", "aa-1", "FORBIDDEN"}
		},
		"rejectDeployment": func(t *testing.T) want {
			if a := r.gql(tokenCI, `mutation { rejectDeployment(id: "aa-1") { id } }`, nil); a.code() != "FORBIDDEN" {
				t.Fatalf("reject as demo-ci: %+v", a)
			}
			return want{"deployment.reject.refused", "aa-1", "FORBIDDEN"}
		},
		"rollback": func(t *testing.T) want {
			if a := r.gql(tokenCI, `mutation { rollback(application: "hello", environment: "staging", to: "aa-1") { id } }`,
				nil); a.code() != "FORBIDDEN" {
				t.Fatalf("rollback as demo-ci: %+v", a)
			}
			return want{"deployment.rollback.refused", "aa-1", "FORBIDDEN"}
		},
		"promote": func(t *testing.T) want {
			// prod has no environment configuration: the promotion's own
			// submission refuses it.
			if a := r.gql(tokenCI, `mutation { promote(id: "aa-1", to: "prod") { id } }`, nil); a.code() != "UNPROCESSABLE" {
				t.Fatalf("promote to an environment without configuration: %+v", a)
			}
			return want{"deployment.promote.refused", "aa-1", "UNPROCESSABLE"}
		},
		"redeploy": func(t *testing.T) want {
			if a := r.gql(tokenCI, `mutation { redeploy(id: "aa-1", newId: "aa-1-again") { id } }`, nil); a.code() != "" {
				t.Fatalf("redeploy aa-1: %+v", a)
			}
			return want{"deployment.redeploy", "aa-1-again", ""}
		},
		"pauseRollout": func(t *testing.T) want {
			if a := r.gql(tokenCI, `mutation { pauseRollout(id: "aa-1", reason: "look") { id } }`, nil); a.code() != "CONFLICT" {
				t.Fatalf("pause an ended deploy: %+v", a)
			}
			return want{"deployment.rollout.pause.refused", "aa-1", "CONFLICT"}
		},
		"resumeRollout": func(t *testing.T) want {
			if a := r.gql(tokenCI, `mutation { resumeRollout(id: "aa-1") { id } }`, nil); a.code() != "CONFLICT" {
				t.Fatalf("resume an ended deploy: %+v", a)
			}
			return want{"deployment.rollout.resume.refused", "aa-1", "CONFLICT"}
		},
		"abortRollout": func(t *testing.T) want {
			if a := r.gql(tokenCI, `mutation { abortRollout(id: "aa-1") { id } }`, nil); a.code() != "CONFLICT" {
				t.Fatalf("abort an ended deploy: %+v", a)
			}
			return want{"deployment.rollout.abort.refused", "aa-1", "CONFLICT"}
		},
		"replayCallbacks": func(t *testing.T) want {
			if a := r.gql(tokenCI, `mutation { replayCallbacks(deploymentId: "aa-1") { id } }`, nil); a.code() != "UNPROCESSABLE" {
				t.Fatalf("replay the callbacks of a deploy without any: %+v", a)
			}
			return want{"callbacks.replay.refused", "aa-1", "UNPROCESSABLE"}
		},
		"submitRelease": func(t *testing.T) want {
			if a := r.gql(tokenCI, `mutation($d: String!) { submitRelease(descriptor: $d) { id } }`,
				map[string]any{"d": release}); a.code() != "" {
				t.Fatalf("submit a release: %+v", a)
			}
			return want{"release.submit", "aa-release", ""}
		},
		"cancelRelease": func(t *testing.T) want {
			// The release may have ended already: then the cancel is a
			// refusal, else it ends the release CANCELLED.
			switch a := r.gql(tokenCI, `mutation { cancelRelease(id: "aa-release") { id } }`, nil); a.code() {
			case "":
				return want{"release.finish", "aa-release", "CANCELLED"}
			case "CONFLICT":
				return want{"release.cancel.refused", "aa-release", "CONFLICT"}
			default:
				t.Fatalf("cancel the release: %+v", a)
			}
			return want{}
		},
		"deleteSchedule": func(t *testing.T) want {
			if a := r.gql(tokenCI, `mutation($d: String!) { submitDeployment(descriptor: $d) { deployment { id } } }`,
				map[string]any{"d": string(schedule)}); a.code() != "" {
				t.Fatalf("submit a schedule: %+v", a)
			}
			if a := r.gql(tokenCI, `mutation { deleteSchedule(name: "aa-nightly") }`, nil); a.code() != "" {
				t.Fatalf("delete the schedule: %+v", a)
			}
			return want{"schedule.delete", "aa-nightly", ""}
		},
	}
	mutations := schemaMutations(t)
	for name := range cases {
		if !slices.Contains(mutations, name) {
			t.Errorf("case %s is no mutation of the schema", name)
		}
	}
	// The order matters: cancelRelease cancels the release submitRelease made.
	order := []string{"submitDeployment", "cancelDeployment", "approveDeployment", "rejectDeployment", "submitRelease",
		"cancelRelease", "rollback", "promote", "redeploy", "pauseRollout", "resumeRollout", "abortRollout", "replayCallbacks", "deleteSchedule"}
	for _, name := range mutations {
		if !slices.Contains(order, name) {
			t.Errorf("mutation %s has no audit case: say which entry it writes", name)
		}
	}
	for _, name := range order {
		t.Run(name, func(t *testing.T) {
			w := cases[name](t)
			a := r.gql(tokenAdmin, `query($a: String!) { auditEntries(filter: {action: $a}) { nodes { actor action target details } } }`,
				map[string]any{"a": w.action})
			var page struct {
				Nodes []auditNode `json:"nodes"`
			}
			if a.code() != "" || json.Unmarshal(a.Data["auditEntries"], &page) != nil {
				t.Fatalf("auditEntries(%s): %+v", w.action, a)
			}
			i := slices.IndexFunc(page.Nodes, func(n auditNode) bool { return n.Target == w.target })
			if i < 0 {
				t.Fatalf("no %s entry about %s: %+v", w.action, w.target, page.Nodes)
			}
			n := page.Nodes[i]
			if n.Actor != ci {
				t.Errorf("%s entry's actor = %q, want %q", w.action, n.Actor, ci)
			}
			switch {
			case w.action == "release.finish":
				if n.Details["state"] != w.code {
					t.Errorf("release.finish details = %v, want state %s", n.Details, w.code)
				}
			case w.code != "":
				if n.Details["code"] != w.code || n.Details["error"] == "" || n.Details["error"] == nil {
					t.Errorf("%s details = %v, want code %s and the error", w.action, n.Details, w.code)
				}
			}
		})
	}

	// What changes nothing or names nothing the caller may see is left
	// out; a resume that names no pause is refused before it reads the
	// deploy, and recorded all the same.
	r.gql(tokenCI, `mutation($d: String!) { submitDeployment(descriptor: $d, validateOnly: true) { validated } }`,
		map[string]any{"d": strings.Replace(other, "aa-other", "aa-other-v", 1)})
	r.gql(tokenCI, `mutation { cancelDeployment(id: "aa-missing") { id } }`, nil)
	// The REST API submits through the same service: a refused POST is
	// recorded, a plan is a validation.
	if _, status := r.postAs(tokenCI, "/api/v1/deployments", "application/yaml",
		[]byte(strings.Replace(other, "aa-other", "aa-other-rest", 1))); status != 403 {
		t.Errorf("POST /api/v1/deployments on other: %d, want 403", status)
	}
	if _, status := r.postAs(tokenCI, "/api/v1/deployments/plan", "application/yaml",
		[]byte(strings.Replace(other, "aa-other", "aa-other-v", 1))); status != 403 {
		t.Errorf("POST /api/v1/deployments/plan on other: %d, want 403", status)
	}
	r.gql(tokenCI, `mutation { resumeRollout(id: "aa-1", pause: "nope") { id } }`, nil)
	a := r.gql(tokenAdmin, `{ auditEntries(first: 200) { nodes { actor action target details } } }`, nil)
	var page struct {
		Nodes []auditNode `json:"nodes"`
	}
	if a.code() != "" || json.Unmarshal(a.Data["auditEntries"], &page) != nil {
		t.Fatalf("auditEntries: %+v", a)
	}
	resumes, rest := 0, 0
	for _, n := range page.Nodes {
		if n.Action == "deployment.submit.refused" && n.Target == "aa-other-rest" && n.Actor == ci && n.Details["code"] == "FORBIDDEN" {
			rest++
		}
		if n.Target == "aa-other-v" || n.Target == "aa-missing" {
			t.Errorf("an entry of a validation or of a missing deploy: %+v", n)
		}
		if n.Action == "deployment.rollout.resume.refused" && n.Details["code"] == "UNPROCESSABLE" {
			resumes++
		}
	}
	if rest != 1 {
		t.Errorf("refused REST submissions recorded = %d, want 1", rest)
	}
	if resumes != 1 {
		t.Errorf("refused resumes naming no pause = %d, want 1", resumes)
	}
}
