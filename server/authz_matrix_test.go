package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/ast"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/generated"
	"manent.dev/manent/internal/pgtest"
)

// The authorization matrix: every GraphQL query, mutation and subscription,
// every field with a resolver of its own (a field that reads more data than
// its object), and every route of the router, asked by identities with and
// without each permission, in two tenants, on one server seeded once.
//
// The fields and the routes are read from the schema and from the router
// themselves: one without a row in matrixRows fails the test with its name.
// To add a row, give its key (Type.field, or the route's pattern as
// router.go registers it), the request, and who may do it (the rules below
// say it as docs/security.md does: onObject, toCreate, signedIn with lists).
// Rows run in order (queries before the mutations that change what they
// read); within a row, the refused requests run before the allowed ones.

// Tenants of the matrix: objects are seeded in both, identities hold
// permissions in one; marker is a third tenant every identity may read,
// whose deploys tell a subscriber that the events before them were sent.
const (
	tenantA      = "ta"
	tenantB      = "tb"
	tenantMarker = "tm"
)

// Outcomes of a request, as a client tells them apart.
const (
	outAllowed       = "ALLOWED"
	outForbidden     = "FORBIDDEN"
	outHidden        = "HIDDEN" // NOT_FOUND, or null, byte for byte the answer about a missing object
	outUnauth        = "UNAUTHENTICATED"
	outUnprocessable = "UNPROCESSABLE"
	outConflict      = "CONFLICT"
	outInternal      = "INTERNAL"
)

type grant struct{ tenant, perm string }

// principal is an identity of the matrix: a static token with grants of
// its own, and groups (a group may hold grants too).
type principal struct {
	name   string // "" is anonymous
	grants []grant
	// viewerOf is a tenant this principal reads through a group.
	viewerOf string
}

func (p principal) anonymous() bool { return p.name == "" }

func (p principal) token() string {
	if p.anonymous() {
		return ""
	}
	return "t-" + p.name
}

func (p principal) String() string {
	if p.anonymous() {
		return "anonymous"
	}
	return "token:" + p.name
}

// holds reports whether p holds perm in tenant, admin implying every
// permission, as the built-in model says.
func (p principal) holds(tenant, perm string) bool {
	if perm == deploy.PermRead && p.viewerOf == tenant {
		return true
	}
	for _, g := range p.grants {
		if (g.tenant == tenant || g.tenant == "*") && (g.perm == perm || g.perm == deploy.PermAdmin) {
			return true
		}
	}
	return false
}

// matrixPrincipals: admin of every tenant; in each tenant its admin, each
// permission alone, a viewer (read through a group), and read with each
// permission that needs it; nobody (reads only the marker tenant); anonymous.
func matrixPrincipals() []principal {
	ps := []principal{{name: "admin", grants: []grant{{"*", deploy.PermAdmin}}}}
	alone := []string{deploy.PermAdmin, deploy.PermSubmit, deploy.PermDryRun, deploy.PermRead, deploy.PermCancel,
		deploy.PermApprove, deploy.PermRollback, deploy.PermFreezeOverride}
	withRead := []string{deploy.PermSubmit, deploy.PermDryRun, deploy.PermCancel, deploy.PermApprove,
		deploy.PermRollback, deploy.PermFreezeOverride}
	for _, t := range []string{tenantA, tenantB} {
		for _, perm := range alone {
			ps = append(ps, principal{name: t + "-" + permName(perm), grants: []grant{{t, perm}}})
		}
		ps = append(ps, principal{name: t + "-viewer", viewerOf: t})
		for _, perm := range withRead {
			ps = append(ps, principal{name: t + "-read-" + permName(perm),
				grants: []grant{{t, deploy.PermRead}, {t, perm}}})
		}
	}
	// Submit with an override in a freeze needs both.
	ps = append(ps, principal{name: tenantA + "-read-submit-override",
		grants: []grant{{tenantA, deploy.PermRead}, {tenantA, deploy.PermSubmit}, {tenantA, deploy.PermFreezeOverride}}})
	return append(ps, principal{name: "nobody"}, principal{})
}

func permName(perm string) string { return strings.TrimPrefix(perm, "deployment.") }

// Rules: who may do what, as docs/security.md says.

// onObject is a request about an existing object of tenant: one who may
// not read it gets the answer about a missing object; a reader without
// perm is refused; anonymous is not authenticated.
func onObject(tenant, perm string) func(principal) string {
	return func(p principal) string {
		switch {
		case p.anonymous():
			return outUnauth
		case !p.holds(tenant, deploy.PermRead):
			return outHidden
		case !p.holds(tenant, perm):
			return outForbidden
		}
		return outAllowed
	}
}

// toCreate is a request that makes something new in tenant: it needs
// every perm, and nothing about reading.
func toCreate(tenant string, perms ...string) func(principal) string {
	return func(p principal) string {
		if p.anonymous() {
			return outUnauth
		}
		for _, perm := range perms {
			if !p.holds(tenant, perm) {
				return outForbidden
			}
		}
		return outAllowed
	}
}

// signedIn is a request any authenticated identity may make (its answer
// holds what the identity may read, see listed).
func signedIn(p principal) string {
	if p.anonymous() {
		return outUnauth
	}
	return outAllowed
}

// public is answered to everyone alike, anonymous included: its answer
// must then be the same for all and name nothing of the tenants.
func public(principal) string { return outAllowed }

func reads(p principal, tenant string) bool { return p.holds(tenant, deploy.PermRead) }

// submits: the promotion targets name an environment of tenant to who
// may submit there (and read the deploy the list is of).
func submits(p principal, tenant string) bool {
	return p.holds(tenant, deploy.PermRead) && p.holds(tenant, deploy.PermSubmit)
}

// mayApprove: the inbox lists a deploy to whoever may approve it (the
// requester, the seeder, is none of the principals).
func mayApprove(p principal, tenant string) bool {
	return p.holds(tenant, deploy.PermRead) && p.holds(tenant, deploy.PermApprove)
}

type matrixRow struct {
	// key is Type.field or the route's pattern.
	key string
	// name tells rows of one key apart.
	name   string
	expect func(principal) string
	ask    func(m *matrix, p principal) answer
	// marker is in every allowed answer: the request reached the object.
	marker string
	// listed: the answer names the object of each tenant (lists[tenant])
	// exactly when sees(p, tenant).
	lists map[string]string
	sees  func(p principal, tenant string) bool
	// flag is a Boolean field of the answer that must be true exactly when
	// the caller holds flagPerm (and the admin's is true); flagMustHold
	// requires the admin's to be true.
	flag         string
	flagPerm     string
	flagMustHold bool
	// state is the admin's read of what the request changes: a refused
	// request must leave it as it was.
	state func(m *matrix) string
	// also are outcomes an allowed request may get besides ALLOWED and
	// CONFLICT (the object's state does not fit the request).
	also []string
	// missingAs is who asks about the missing object (before the seed):
	// nobody by default.
	missingAs string
	// whole: an allowed answer carries no error at all.
	whole bool
	// run replaces the generic check (a test of its own).
	run func(t *testing.T, m *matrix)
	// public routes serve no tenant data.
	public bool
}

func (r matrixRow) label() string {
	if r.name == "" {
		return r.key
	}
	return r.key + " (" + r.name + ")"
}

type matrix struct {
	t    *testing.T
	srv  *Server
	seed principal
	// missing is the answer about objects that do not exist (asked before
	// they were seeded) by row label.
	missing map[string]answer
}

func (m *matrix) gql(p principal, query string) answer {
	return askGraphQL(m.t, m.srv, p.token(), query, nil)
}

func (m *matrix) rest(p principal, method, path, body string) answer {
	return ask(m.t, method, m.srv.URL()+path, p.token(), "", body)
}

func (m *matrix) admin() principal { return principal{name: "admin"} }

// descriptorFor is a deploy of hello on the local plugin.
func descriptorFor(tenant, id, env, extra string) string {
	return fmt.Sprintf(`apiVersion: manent/v1
id: %s
tenant: %s
application: hello
environment: %s
artifact: {type: application, name: hello, version: 1.0.0, source: "file:hello-1.0.0.tar.gz"}
%s`, id, tenant, env, extra)
}

func releaseFor(tenant, id, member, env string) string {
	return fmt.Sprintf(`apiVersion: manent/v1
kind: Release
id: %s
deploys:
  - name: only
    descriptor:
      apiVersion: manent/v1
      id: %s
      tenant: %s
      application: hello
      environment: %s
      artifact: {type: application, name: hello, version: 1.0.0, source: "file:hello-1.0.0.tar.gz"}
`, id, member, tenant, env)
}

func gqlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const crossRelease = `apiVersion: manent/v1
kind: Release
id: tx-release
deploys:
  - name: a
    descriptor:
      apiVersion: manent/v1
      id: tx-rel-a
      tenant: ta
      application: hello
      environment: staging
      artifact: {type: application, name: hello, version: 1.0.0, source: "file:hello-1.0.0.tar.gz"}
  - name: b
    descriptor:
      apiVersion: manent/v1
      id: tx-rel-b
      tenant: tb
      application: hello
      environment: staging
      artifact: {type: application, name: hello, version: 1.0.0, source: "file:hello-1.0.0.tar.gz"}
`

// readsBoth is the rule of a release over both tenants.
func readsBoth(p principal) string {
	if e := onObject(tenantA, deploy.PermRead)(p); e != outAllowed {
		return e
	}
	return onObject(tenantB, deploy.PermRead)(p)
}

// matrixRows is the table: one row (or more) per GraphQL field and route.
func matrixRows() []matrixRow {
	a := tenantA
	lists := map[string]string{tenantA: `"tenant":"ta"`, tenantB: `"tenant":"tb"`}
	stateOf := func(id, fields string) func(m *matrix) string {
		return func(m *matrix) string {
			return m.gql(m.admin(), fmt.Sprintf(`{ deployment(id: %q) { %s } }`, id, fields)).body
		}
	}
	statusOf := func(path func(p principal) string) func(m *matrix) string {
		return func(m *matrix) string {
			var all []string
			for _, p := range matrixPrincipals() {
				all = append(all, p.name+" "+fmt.Sprint(m.rest(m.admin(), "GET", path(p), "").status))
			}
			return strings.Join(all, "\n")
		}
	}
	releaseOf := func(id func(p principal) string) func(m *matrix) string {
		return func(m *matrix) string {
			var all []string
			for _, p := range matrixPrincipals() {
				all = append(all, m.gql(m.admin(), fmt.Sprintf(`{ release(id: %q) { id state } }`, id(p))).body)
			}
			return strings.Join(all, "\n")
		}
	}
	rolloutState := func(id string) func(m *matrix) string {
		return stateOf(id, "state rollout { state request { action by } pause { step } waves { state } }")
	}
	return []matrixRow{
		// Queries.
		{key: "Query.viewer", expect: signedIn, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ viewer { subject groups } }`)
		}},
		{key: "Query.deployment", expect: onObject(a, deploy.PermRead), marker: `"id":"ta-done"`, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ deployment(id: "ta-done") { id tenant state steps { name } exports { name } dependents { id } } }`)
		}},
		{key: "Query.deployment", name: "dependents in another tenant", expect: onObject(a, deploy.PermRead), marker: `"id":"ta-done"`,
			lists: map[string]string{tenantB: `"tb-after"`}, sees: reads, ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "ta-done") { id dependents { id state } } }`)
			}},
		{key: "Query.deployment", name: "dependency in another tenant", expect: onObject(tenantB, deploy.PermRead), marker: `"id":"ta-done"`,
			lists: map[string]string{tenantA: `"state":"SUCCESS"`}, sees: reads, ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "tb-after") { after { dependencies { id state } } } }`)
			}},
		// Every field of the schema under the object, so that a field added
		// to a type is asked too: the whole answer for a reader, with no
		// error, the missing one for anyone else.
		{key: "Query.deployment", name: "every field", expect: onObject(a, deploy.PermRead), marker: `"id":"ta-fleet-pause"`, whole: true,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "ta-fleet-pause") `+everyField(m.t, "Deployment")+` }`)
			}},
		{key: "Query.release", name: "every field", expect: readsBoth, marker: `"id":"tx-release"`, whole: true,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ release(id: "tx-release") `+everyField(m.t, "Release", "Deployment")+` }`)
			}},
		{key: "Query.deployments", expect: signedIn, lists: lists, sees: reads, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ deployments(first: 500) { nodes { tenant } } }`)
		}},
		{key: "Query.activity", expect: signedIn, lists: lists, sees: reads, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ activity(first: 500) { tenant } }`)
		}},
		{key: "Query.inventory", expect: signedIn, lists: lists, sees: reads, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ inventory { tenant deploymentId } }`)
		}},
		{key: "Query.pendingApprovals", expect: signedIn, lists: lists, sees: mayApprove, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ pendingApprovals { tenant } }`)
		}},
		{key: "Query.auditEntries", expect: signedIn, lists: lists, sees: reads, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ auditEntries(first: 500) { nodes { target resources { tenant } } } }`)
		}},
		{key: "Query.auditEntries", name: "a release over both tenants", expect: signedIn, lists: map[string]string{tenantA: `"target":"tx-release"`},
			sees: func(p principal, _ string) bool { return readsBoth(p) == outAllowed }, ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ auditEntries(first: 500, filter: {action: "release.*"}) { nodes { target } } }`)
			}},
		{key: "Query.doraMetrics", expect: signedIn, lists: map[string]string{tenantA: `"ta-done"`, tenantB: `"tb-done"`}, sees: reads,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ doraMetrics { total { deploymentFrequency { deploymentIds } } } }`)
			}},
		{key: "Query.freezeCalendar", expect: onObject(a, deploy.PermRead), marker: `"ta-freeze"`, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ freezeCalendar(tenant: "ta", application: "hello", environment: "frozen") { windows { rule } } }`)
		}},
		{key: "Query.freezeCalendars", expect: signedIn, lists: map[string]string{tenantA: `"ta-freeze"`, tenantB: `"tb-freeze"`}, sees: reads,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ freezeCalendars(environments: [{tenant: "ta", application: "hello", environment: "frozen"},
					{tenant: "tb", application: "hello", environment: "frozen"}]) { tenant calendar { windows { rule } } } }`)
			}},
		{key: "Query.release", expect: onObject(a, deploy.PermRead), marker: `"id":"ta-release"`, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ release(id: "ta-release") { id state deploys { name deploymentId state } } }`)
		}},
		{key: "Query.release", name: "two tenants", expect: readsBoth, marker: `"id":"tx-release"`, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ release(id: "tx-release") { id state deploys { name deploymentId state } } }`)
		}},
		{key: "Query.releases", name: "two tenants", expect: signedIn, lists: map[string]string{tenantA: `"tx-release"`}, sees: func(p principal, _ string) bool {
			return readsBoth(p) == outAllowed
		}, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ releases(first: 500) { nodes { id } } }`)
		}},
		{key: "ReleaseDeploy.deployment", name: "two tenants", expect: readsBoth, marker: `"id":"tx-rel-b"`, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ release(id: "tx-release") { deploys { deployment { id } } } }`)
		}},
		{key: "Subscription.releaseEvents", name: "two tenants", expect: readsBoth, marker: `"id":"tx-release"`, ask: func(m *matrix, p principal) answer {
			return m.subscribe(p, `subscription { releaseEvents(id: "tx-release") { id state } }`, false)
		}},
		{key: "Query.releases", expect: signedIn, lists: map[string]string{tenantA: `"ta-release"`, tenantB: `"tb-release"`}, sees: reads,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ releases(first: 500) { nodes { id } } }`)
			}},
		{key: "Query.schedules", expect: signedIn, lists: lists, sees: reads, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ schedules { tenant name } }`)
		}},

		// Fields with resolvers of their own.
		{key: "Deployment.logs", expect: onObject(a, deploy.PermRead), marker: `"message"`, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ deployment(id: "ta-done") { logs(limit: 1) { lines { message } } } }`)
		}},
		{key: "Deployment.canCancel", expect: onObject(a, deploy.PermRead), flag: "canCancel", flagPerm: deploy.PermCancel, flagMustHold: true,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "ta-await") { canCancel } }`)
			}},
		{key: "Deployment.canApprove", expect: onObject(a, deploy.PermRead), flag: "canApprove", flagPerm: deploy.PermApprove, flagMustHold: true,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "ta-await") { canApprove } }`)
			}},
		{key: "Deployment.canPauseRollout", expect: onObject(a, deploy.PermRead), flag: "canPauseRollout", flagPerm: deploy.PermRolloutControl, flagMustHold: true,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "ta-fleet-pause") { canPauseRollout } }`)
			}},
		{key: "Deployment.canResumeRollout", expect: onObject(a, deploy.PermRead), flag: "canResumeRollout", flagPerm: deploy.PermRolloutControl, flagMustHold: true,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "ta-fleet-resume") { canResumeRollout } }`)
			}},
		{key: "Deployment.canAbortRollout", expect: onObject(a, deploy.PermRead), flag: "canAbortRollout", flagPerm: deploy.PermRolloutControl, flagMustHold: true,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "ta-fleet-abort") { canAbortRollout } }`)
			}},
		{key: "ReleaseDeploy.deployment", expect: onObject(a, deploy.PermRead), marker: `"id":"ta-rel-1"`, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ release(id: "ta-release") { deploys { deployment { id } } } }`)
		}},
		// What the viewer may do (the affordances): true exactly for who
		// holds what the mutation needs, by the check the mutation runs.
		{key: "Deployment.canPromote", expect: onObject(a, deploy.PermRead), flag: "canPromote", flagPerm: deploy.PermSubmit, flagMustHold: true,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "ta-done") { canPromote(to: "prod") } }`)
			}},
		{key: "Deployment.promotionTargets", expect: onObject(a, deploy.PermRead), marker: `"promotionTargets":[`,
			lists: map[string]string{tenantA: `"prod"`}, sees: submits, ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "ta-done") { promotionTargets } }`)
			}},
		{key: "Deployment.canRedeploy", expect: onObject(a, deploy.PermRead), flag: "canRedeploy", flagPerm: deploy.PermSubmit, flagMustHold: true,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "ta-done") { canRedeploy } }`)
			}},
		// A dry run is redeployed as a dry run: deployment.dry-run, not submit.
		{key: "Deployment.canRedeploy", name: "a dry run", expect: onObject(a, deploy.PermRead), flag: "canRedeploy", flagPerm: deploy.PermDryRun,
			flagMustHold: true, ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "ta-dry") { canRedeploy } }`)
			}},
		{key: "Deployment.canRollbackTo", expect: onObject(a, deploy.PermRead), flag: "canRollbackTo", flagPerm: deploy.PermRollback, flagMustHold: true,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "ta-done") { canRollbackTo } }`)
			}},
		{key: "Deployment.memberOf", expect: onObject(a, deploy.PermRead), marker: `"id":"ta-release"`, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ deployment(id: "ta-rel-1") { memberOf { id deploys { deploymentId } } } }`)
		}},
		// A release over both tenants is null to who reads one of them.
		{key: "Deployment.memberOf", name: "two tenants", expect: onObject(a, deploy.PermRead), marker: `"id":"tx-rel-a"`,
			lists: map[string]string{tenantB: `"tx-release"`}, sees: func(p principal, _ string) bool { return readsBoth(p) == outAllowed },
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "tx-rel-a") { id memberOf { id deploys { deploymentId } } } }`)
			}},
		// The approval context: the evidence of the mandatory promotion (the
		// deploy of staging), and the holders of deployment.approve of the
		// deploy's tenant only.
		{key: "Deployment.approvalContext", expect: onObject(a, deploy.PermRead), marker: `"deploymentId":"ta-done"`, whole: true,
			lists: map[string]string{tenantA: `"token:ta-approve"`, tenantB: `tb-`}, sees: func(_ principal, tenant string) bool { return tenant == tenantA },
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "ta-await") { approvalContext { inService { deploymentId } proposed { version } proposedSha256
					promotionEvidence { environment deploymentId version finishedAt } explanation
					approvers { required groups roles holders excluded } } } }`)
			}},
		{key: "Deployment.approvalContext", name: "another tenant", expect: onObject(tenantB, deploy.PermRead), marker: `"deploymentId":"tb-done"`, whole: true,
			lists: map[string]string{tenantA: `ta-`}, sees: func(principal, string) bool { return false },
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ deployment(id: "tb-await") { approvalContext { inService { deploymentId } proposed { version } proposedSha256
					promotionEvidence { environment deploymentId version finishedAt } explanation
					approvers { required groups roles holders excluded } } } }`)
			}},
		{key: "Environment.canRollback", expect: onObject(a, deploy.PermRead), flag: "canRollback", flagPerm: deploy.PermRollback, flagMustHold: true,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ environment(tenant: "ta", application: "hello", environment: "staging") { canRollback } }`)
			}},
		// The history of one environment: its deploys, never another
		// tenant's.
		{key: "Environment.history", expect: onObject(a, deploy.PermRead), marker: `"id":"ta-done"`,
			lists: lists, sees: func(_ principal, tenant string) bool { return tenant == tenantA },
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ environment(tenant: "ta", application: "hello", environment: "staging") { history(first: 500) { nodes { id tenant } } } }`)
			}},
		{key: "InventoryEntry.canRollback", expect: onObject(a, deploy.PermRead), flag: "canRollback", flagPerm: deploy.PermRollback, flagMustHold: true,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ environment(tenant: "ta", application: "hello", environment: "staging") { inService { canRollback } } }`)
			}},
		{key: "PreviousRelease.canRollbackTo", expect: onObject(a, deploy.PermRead), flag: "canRollbackTo", flagPerm: deploy.PermRollback, flagMustHold: true,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ environment(tenant: "ta", application: "hello", environment: "staging") { inService { previous { canRollbackTo } } } }`)
			}},
		{key: "InventoryEntry.promotionTargets", expect: onObject(a, deploy.PermRead), marker: `"promotionTargets":[`,
			lists: map[string]string{tenantA: `"prod"`}, sees: submits, ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ environment(tenant: "ta", application: "hello", environment: "staging") { inService { promotionTargets } } }`)
			}},
		// In the inventory, each entry's targets are the viewer's there.
		{key: "InventoryEntry.promotionTargets", name: "the inventory", expect: signedIn,
			lists: map[string]string{tenantA: `"tenant":"ta","environment":"staging","promotionTargets":["prod"]`,
				tenantB: `"tenant":"tb","environment":"staging","promotionTargets":["prod"]`}, sees: submits,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ inventory { tenant environment promotionTargets } }`)
			}},
		{key: "Release.canCancel", expect: onObject(a, deploy.PermRead), flag: "canCancel", flagPerm: deploy.PermCancel, flagMustHold: true,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ release(id: "ta-release-wait") { canCancel } }`)
			}},
		{key: "ReleaseDeploy.failedStep", expect: onObject(a, deploy.PermRead), marker: `"failedStep":"`, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ release(id: "ta-release-fail") { deploys { deploymentId state failedStep } } }`)
		}},
		{key: "Schedule.canDelete", expect: signedIn,
			lists: map[string]string{tenantA: `"name":"ta-nightly","canDelete":true`, tenantB: `"name":"tb-nightly","canDelete":true`}, sees: submits,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ schedules { name canDelete } }`)
			}},
		// An environment's page: null to who may not read it, as one that
		// does not exist.
		{key: "Query.environment", expect: onObject(a, deploy.PermRead), marker: `"tenant":"ta"`, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ environment(tenant: "ta", application: "hello", environment: "staging") { tenant application environment
				inService { deploymentId } lastFailure { deploymentId } } }`)
		}},
		{key: "Query.environment", name: "the default tenant", expect: onObject(a, deploy.PermRead), marker: `"tenant":"ta"`, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ environment(application: "hello", environment: "staging") { tenant inService { deploymentId } } }`)
		}},
		{key: "Query.environment", name: "another tenant", expect: onObject(tenantB, deploy.PermRead), marker: `"tenant":"tb"`, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ environment(tenant: "tb", application: "hello", environment: "staging") { tenant inService { deploymentId } } }`)
		}},

		// Subscriptions.
		{key: "Subscription._noop", expect: signedIn, ask: func(m *matrix, p principal) answer {
			return m.subscribe(p, `subscription { _noop }`, false)
		}},
		{key: "Subscription.deploymentEvents", expect: onObject(a, deploy.PermRead), marker: `"id":"ta-done"`, ask: func(m *matrix, p principal) answer {
			return m.subscribe(p, `subscription { deploymentEvents(id: "ta-done") { kind deployment { id state } } }`, false)
		}},
		{key: "Subscription.releaseEvents", expect: onObject(a, deploy.PermRead), marker: `"id":"ta-release"`, ask: func(m *matrix, p principal) answer {
			return m.subscribe(p, `subscription { releaseEvents(id: "ta-release") { id state } }`, false)
		}},
		{key: "Subscription.pendingApprovals", expect: signedIn, lists: lists, sees: mayApprove, ask: func(m *matrix, p principal) answer {
			return m.subscribe(p, `subscription { pendingApprovals { tenant } }`, true)
		}},
		{key: "Subscription.activity", run: testActivityPerEvent},

		// Mutations: each changes an object of its own (or makes new ones).
		{key: "Mutation._noop", expect: signedIn, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `mutation { _noop }`)
		}},
		{key: "Mutation.submitDeployment", name: "validate only", expect: toCreate(a, deploy.PermSubmit), marker: `"validated":true`,
			state: statusOf(func(p principal) string { return "/api/v1/deployments/mv-" + p.name }),
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, fmt.Sprintf(`mutation { submitDeployment(descriptor: %s, validateOnly: true) { validated deployment { id } } }`,
					gqlString(descriptorFor(a, "mv-"+p.name, "staging", ""))))
			}},
		{key: "Mutation.submitDeployment", name: "dry run", expect: toCreate(a, deploy.PermDryRun), marker: `"validated":true`,
			state: statusOf(func(p principal) string { return "/api/v1/deployments/md-" + p.name }),
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, fmt.Sprintf(`mutation { submitDeployment(descriptor: %s, validateOnly: true) { validated } }`,
					gqlString(descriptorFor(a, "md-"+p.name, "staging", "dryRun: true\n"))))
			}},
		{key: "Mutation.submitDeployment", name: "freeze override", marker: `"validated":true`,
			expect: func(p principal) string {
				if e := toCreate(a, deploy.PermSubmit)(p); e != outAllowed {
					return e
				}
				if !p.holds(a, deploy.PermFreezeOverride) {
					return outUnprocessable // the override is ignored: refused as in the freeze
				}
				return outAllowed
			},
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, fmt.Sprintf(`mutation { submitDeployment(descriptor: %s, validateOnly: true) { validated } }`,
					gqlString(descriptorFor(a, "mf-"+p.name, "frozen", "freezeOverride: {reason: matrix}\n"))))
			}},
		// An after names a deploy of another tenant: to one who may not read
		// it, as one that does not exist.
		{key: "Mutation.submitDeployment", name: "after a deploy of another tenant", missingAs: "tb-submit", marker: `"validated":true`,
			expect: func(p principal) string {
				if e := toCreate(tenantB, deploy.PermSubmit)(p); e != outAllowed {
					return e
				}
				if !reads(p, a) {
					return outHidden
				}
				return outAllowed
			},
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, fmt.Sprintf(`mutation { submitDeployment(descriptor: %s, validateOnly: true) { validated } }`,
					gqlString(descriptorFor(tenantB, "ma-"+p.name, "staging", "after: [ta-done]\n"))))
			}},
		{key: "Mutation.cancelDeployment", expect: onObject(a, deploy.PermCancel), marker: `"id":"ta-cancel"`,
			state: stateOf("ta-cancel", "state cancelRequested cancelledBy"),
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `mutation { cancelDeployment(id: "ta-cancel") { id state } }`)
			}},
		{key: "Mutation.approveDeployment", expect: onObject(a, deploy.PermApprove), marker: `"id":"ta-await"`,
			state: stateOf("ta-await", "state approval { approvals { identity approved } }"),
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `mutation { approveDeployment(id: "ta-await", comment: "matrix") { id state } }`)
			}},
		{key: "Mutation.rejectDeployment", expect: onObject(a, deploy.PermApprove), marker: `"id":"ta-reject"`,
			state: stateOf("ta-reject", "state approval { approvals { identity approved } }"),
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `mutation { rejectDeployment(id: "ta-reject", comment: "matrix") { id state } }`)
			}},
		{key: "Mutation.pauseRollout", expect: onObject(a, deploy.PermRolloutControl), state: rolloutState("ta-fleet-pause"), marker: `"id":"ta-fleet-pause"`,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `mutation { pauseRollout(id: "ta-fleet-pause", reason: "matrix") { id } }`)
			}},
		{key: "Mutation.resumeRollout", expect: onObject(a, deploy.PermRolloutControl), state: rolloutState("ta-fleet-resume"), marker: `"id":"ta-fleet-resume"`,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `mutation { resumeRollout(id: "ta-fleet-resume", comment: "matrix") { id } }`)
			}},
		{key: "Mutation.abortRollout", expect: onObject(a, deploy.PermRolloutControl), state: rolloutState("ta-fleet-abort"), marker: `"id":"ta-fleet-abort"`,
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `mutation { abortRollout(id: "ta-fleet-abort", reason: "matrix") { id } }`)
			}},
		{key: "Mutation.submitRelease", expect: toCreate(a, deploy.PermSubmit), marker: `"id":"mr-`,
			state: releaseOf(func(p principal) string { return "mr-" + p.name }),
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, fmt.Sprintf(`mutation { submitRelease(descriptor: %s) { id } }`,
					gqlString(releaseFor(a, "mr-"+p.name, "mr-"+p.name+"-1", "staging"))))
			}},
		// A release submitted again is answered with the existing one, to who
		// may submit it; an ID held by a release the caller may not read is
		// in use.
		{key: "Mutation.submitRelease", name: "again", marker: `"id":"ta-release"`,
			expect: func(p principal) string {
				if e := toCreate(a, deploy.PermSubmit)(p); e != outAllowed {
					return e
				}
				if !reads(p, a) {
					return outConflict
				}
				return outAllowed
			},
			state: releaseOf(func(principal) string { return "ta-release" }),
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, fmt.Sprintf(`mutation { submitRelease(descriptor: %s) { id } }`,
					gqlString(releaseFor(a, "ta-release", "ta-rel-1", "staging"))))
			}},
		{key: "Mutation.submitRelease", name: "two tenants", marker: `"id":"mx-`,
			expect: func(p principal) string {
				if e := toCreate(a, deploy.PermSubmit)(p); e != outAllowed {
					return e
				}
				return toCreate(tenantB, deploy.PermSubmit)(p)
			},
			state: releaseOf(func(p principal) string { return "mx-" + p.name }),
			ask: func(m *matrix, p principal) answer {
				doc := strings.ReplaceAll(strings.ReplaceAll(crossRelease, "tx-", "mx-"+p.name+"-"), "id: mx-"+p.name+"-release", "id: mx-"+p.name)
				return m.gql(p, fmt.Sprintf(`mutation { submitRelease(descriptor: %s) { id } }`, gqlString(doc)))
			}},
		// Replaying needs deployment.cancel; ta-done has no callbacks, so
		// one allowed hears just that, and the refused learn nothing of it.
		{key: "Mutation.replayCallbacks", expect: onObject(a, deploy.PermCancel), also: []string{"UNPROCESSABLE"},
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `mutation { replayCallbacks(deploymentId: "ta-done") { id state } }`)
			}},
		{key: "Mutation.cancelRelease", expect: onObject(a, deploy.PermCancel), marker: `"id":"ta-release-wait"`,
			state: releaseOf(func(principal) string { return "ta-release-wait" }),
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, `mutation { cancelRelease(id: "ta-release-wait") { id state } }`)
			}},
		// A rollback needs deployment.rollback; to one who may not read the
		// environment, it is nothing in service there (as before any deploy).
		{key: "Mutation.rollback", name: "to", marker: `"id":"rb-`, expect: rollbackRule, missingAs: "admin",
			state: statusOf(func(p principal) string { return "/api/v1/deployments/rb-" + p.name }),
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, fmt.Sprintf(`mutation { rollback(tenant: "ta", application: "hello", environment: "staging", to: "ta-done", id: %q) { id } }`,
					"rb-"+p.name))
			}},
		{key: "Mutation.rollback", name: "previous release", marker: `"id":"rp-`, expect: rollbackRule, missingAs: "admin",
			state: statusOf(func(p principal) string { return "/api/v1/deployments/rp-" + p.name }),
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, fmt.Sprintf(`mutation { rollback(tenant: "ta", application: "hello", environment: "staging", id: %q) { id } }`,
					"rp-"+p.name))
			}},
		{key: "Mutation.deleteSchedule", expect: onObject(a, deploy.PermSubmit), marker: `"deleteSchedule":true`,
			state: func(m *matrix) string { return m.gql(m.admin(), `{ schedules { name state } }`).body },
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, fmt.Sprintf(`mutation { deleteSchedule(name: %q) }`, scheduleOf(p)))
			}},

		// A promotion and a redeploy are submissions: deployment.submit
		// where they deploy, and a source the caller may not read is one
		// that does not exist. Promoted to prod, each waits for approvals.
		{key: "Mutation.promote", expect: onObject(a, deploy.PermSubmit), marker: `"id":"pro-`,
			state: statusOf(func(p principal) string { return "/api/v1/deployments/pro-" + p.name }),
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, fmt.Sprintf(`mutation { promote(id: "ta-done", to: "prod", newId: %q) { id state promotedFrom } }`, "pro-"+p.name))
			}},
		// ta-cancel was cancelled by its row: redeployed in prod, it waits.
		{key: "Mutation.redeploy", expect: onObject(a, deploy.PermSubmit), marker: `"id":"red-`,
			state: statusOf(func(p principal) string { return "/api/v1/deployments/red-" + p.name }),
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, fmt.Sprintf(`mutation { redeploy(id: "ta-cancel", newId: %q) { id state promotedFrom } }`, "red-"+p.name))
			}},
		{key: "Mutation.redeploy", name: "a dry run", expect: onObject(a, deploy.PermDryRun), marker: `"id":"rdd-`,
			state: statusOf(func(p principal) string { return "/api/v1/deployments/rdd-" + p.name }),
			ask: func(m *matrix, p principal) answer {
				return m.gql(p, fmt.Sprintf(`mutation { redeploy(id: "ta-dry", newId: %q) { id dryRun promotedFrom } }`, "rdd-"+p.name))
			}},
		// The promotions and redeploys above, done and refused, are in the
		// audit log of their tenant only.
		{key: "Query.auditEntries", name: "promotions and redeploys", expect: signedIn,
			lists: map[string]string{tenantA: `"target":"ta-done"`}, sees: reads, ask: func(m *matrix, p principal) answer {
				return m.gql(p, `{ auditEntries(first: 500, filter: {action: "deployment.promote*"}) { nodes { action target resources { tenant } } } }`)
			}},

		// REST and the other routes.
		{key: "/graphql", expect: signedIn, ask: func(m *matrix, p principal) answer {
			return m.gql(p, `{ __typename }`)
		}},
		{key: "POST /api/v1/deployments", expect: toCreate(a, deploy.PermSubmit), marker: `"id": "ms-`,
			state: statusOf(func(p principal) string { return "/api/v1/deployments/ms-" + p.name }),
			ask: func(m *matrix, p principal) answer {
				return m.rest(p, "POST", "/api/v1/deployments", descriptorFor(a, "ms-"+p.name, "staging", ""))
			}},
		// An ID in use: the deploy itself to who may submit and read it, a
		// conflict to who may submit but not read it.
		{key: "POST /api/v1/deployments", name: "again", expect: againRule, marker: `"id": "ta-done"`,
			state: func(m *matrix) string {
				return m.gql(m.admin(), `{ deployment(id: "ta-done") { state requester updatedAt } }`).body
			},
			ask: func(m *matrix, p principal) answer {
				return m.rest(p, "POST", "/api/v1/deployments", descriptorFor(a, "ta-done", "staging", ""))
			}},
		{key: "POST /api/v1/deployments", name: "a schedule again", expect: againRule, marker: `"id": "ta-nightly-again"`,
			state: func(m *matrix) string { return m.gql(m.admin(), `{ schedules { name requester updatedAt } }`).body },
			ask: func(m *matrix, p principal) answer {
				return m.rest(p, "POST", "/api/v1/deployments", descriptorFor(a, "ta-nightly-again", "staging", "schedule: {cron: \"0 3 * * *\"}\n"))
			}},
		{key: "POST /api/v1/deployments", name: "dry run", expect: toCreate(a, deploy.PermDryRun), marker: `"id": "mdr-`,
			state: statusOf(func(p principal) string { return "/api/v1/deployments/mdr-" + p.name }),
			ask: func(m *matrix, p principal) answer {
				return m.rest(p, "POST", "/api/v1/deployments", descriptorFor(a, "mdr-"+p.name, "staging", "dryRun: true\n"))
			}},
		{key: "POST /api/v1/deployments/plan", expect: toCreate(a, deploy.PermSubmit), marker: `"validated": true`,
			state: statusOf(func(p principal) string { return "/api/v1/deployments/mp-" + p.name }),
			ask: func(m *matrix, p principal) answer {
				return m.rest(p, "POST", "/api/v1/deployments/plan", descriptorFor(a, "mp-"+p.name, "staging", ""))
			}},
		{key: "POST /api/v1/deployments/plan", name: "an ID in use", expect: againRule, marker: `"validated": true`,
			ask: func(m *matrix, p principal) answer {
				return m.rest(p, "POST", "/api/v1/deployments/plan", descriptorFor(a, "ta-done", "staging", ""))
			}},
		{key: "GET /api/v1/deployments/{id}", expect: onObject(a, deploy.PermRead), marker: `"id": "ta-done"`, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "GET", "/api/v1/deployments/ta-done", "")
		}},
		{key: "GET /api/v1/deployments/{id}/events", expect: onObject(a, deploy.PermRead), marker: `"id":"ta-done"`, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "GET", "/api/v1/deployments/ta-done/events", "")
		}},
		{key: "/api/", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "GET", "/api/v1/nothing", "")
		}},
		// Slack signs its requests: a bearer token changes nothing (the
		// actions themselves are tested with signed requests in chat_test.go).
		{key: "POST /api/v1/chat/slack/actions", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "POST", "/api/v1/chat/slack/actions", "payload=%7B%7D")
		}},
		// The web interface's sessions: a bearer token opens none and
		// reads none (this server has no single sign-on and no token
		// sign-in), so everyone hears the same.
		{key: "GET /auth/session", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "GET", "/auth/session", "")
		}},
		{key: "GET /auth/login", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "GET", "/auth/login", "")
		}},
		{key: "GET /auth/callback", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "GET", "/auth/callback?state=x&code=y", "")
		}},
		{key: "POST /auth/token", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "POST", "/auth/token", `{"token":"t-admin"}`)
		}},
		{key: "POST /auth/logout", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "POST", "/auth/logout", "")
		}},
		{key: "POST /auth/logout-everywhere", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "POST", "/auth/logout-everywhere", "")
		}},
		{key: "/auth/", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "GET", "/auth/nothing", "")
		}},
		// Ending another identity's sessions is for administrators of
		// every tenant alone.
		{key: "DELETE /api/v1/sessions", expect: everyTenantAdmin, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "DELETE", "/api/v1/sessions?subject=oidc:nobody", "")
		}},
		// How manent login signs in: the same for everyone, no tenant data.
		{key: "GET /api/v1/auth/oidc", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "GET", "/api/v1/auth/oidc", "")
		}},
		// The metrics map the installation, every tenant: administrators of
		// every tenant (or the scrape token, metrics_test.go) alone read
		// them, not an administrator of the default tenant.
		{key: "GET /metrics", expect: everyTenantAdmin, marker: "manent_build_info", ask: func(m *matrix, p principal) answer {
			return m.rest(p, "GET", "/metrics", "")
		}},
		{key: "GET /healthz", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "GET", "/healthz", "")
		}},
		{key: "GET /readyz", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "GET", "/readyz", "")
		}},
		{key: "GET /demo/", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "GET", "/demo/ta-done", "")
		}},
		{key: "GET /demo-fleet/{path...}", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "GET", "/demo-fleet/ta-done", "")
		}},
		{key: "/", expect: public, public: true, ask: func(m *matrix, p principal) answer {
			return m.rest(p, "GET", "/deployments/ta-done", "")
		}},
	}
}

// everyTenantAdmin is an action of administrators of every tenant.
func everyTenantAdmin(p principal) string {
	switch {
	case p.anonymous():
		return outUnauth
	case p.holds("*", deploy.PermAdmin) && slices.ContainsFunc(p.grants, func(g grant) bool { return g.tenant == "*" }):
		return outAllowed
	}
	return outForbidden
}

func againRule(p principal) string {
	if e := toCreate(tenantA, deploy.PermSubmit)(p); e != outAllowed {
		return e
	}
	if !reads(p, tenantA) {
		return outConflict
	}
	return outAllowed
}

func rollbackRule(p principal) string {
	if e := toCreate(tenantA, deploy.PermRollback)(p); e != outAllowed {
		return e
	}
	return onObject(tenantA, deploy.PermRollback)(p)
}

// scheduleOf is the schedule a principal deletes: the one every refused
// request aims at, or one of its own for those allowed (a deleted
// schedule is not found by the next).
func scheduleOf(p principal) string {
	if onObject(tenantA, deploy.PermSubmit)(p) == outAllowed {
		return "ta-nightly-" + p.name
	}
	return "ta-nightly"
}

// everyField is a selection of every field of the type and of the types
// under it (each once on a path, at most five deep), the fields that need
// an argument without a default left out, and those of the types skipped
// (what another row asks whole, and would cost too much under a list).
func everyField(t *testing.T, typeName string, skip ...string) string {
	t.Helper()
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	var sel func(name string, depth int, path []string) string
	sel = func(name string, depth int, path []string) string {
		var b strings.Builder
		b.WriteString("{")
		for _, f := range schema.Types[name].Fields {
			if strings.HasPrefix(f.Name, "__") || slices.ContainsFunc(f.Arguments, func(a *ast.ArgumentDefinition) bool {
				return a.Type.NonNull && a.DefaultValue == nil
			}) {
				continue
			}
			def := schema.Types[f.Type.Name()]
			switch {
			case def.Kind != ast.Object:
				b.WriteString(" " + f.Name)
			case depth > 0 && !slices.Contains(path, def.Name) && !slices.Contains(skip, def.Name):
				b.WriteString(" " + f.Name + " " + sel(def.Name, depth-1, append(slices.Clone(path), def.Name)))
			}
		}
		b.WriteString(" }")
		return b.String()
	}
	return sel(typeName, 5, []string{typeName})
}

// schemaFields lists what the matrix must cover from the schema: every
// field of Query, Mutation and Subscription, and every field of another
// type that gqlgen resolves by a resolver of its own (the methods of the
// generated resolver interfaces), as Type.field.
func schemaFields(t *testing.T) []string {
	t.Helper()
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	var out []string
	for _, root := range []string{"Query", "Mutation", "Subscription"} {
		def := schema.Types[root]
		if def == nil {
			continue
		}
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			out = append(out, root+"."+f.Name)
		}
	}
	roots := reflect.TypeFor[generated.ResolverRoot]()
	for i := range roots.NumMethod() {
		typeName := roots.Method(i).Name
		if typeName == "Query" || typeName == "Mutation" || typeName == "Subscription" {
			continue
		}
		def := schema.Types[typeName]
		if def == nil {
			t.Fatalf("resolver root %s names no type of the schema", typeName)
		}
		resolver := roots.Method(i).Type.Out(0)
		for j := range resolver.NumMethod() {
			method := resolver.Method(j).Name
			found := false
			for _, f := range def.Fields {
				if strings.EqualFold(f.Name, method) {
					out = append(out, typeName+"."+f.Name)
					found = true
				}
			}
			if !found {
				t.Fatalf("resolver %s.%s resolves no field of the schema", typeName, method)
			}
		}
	}
	sort.Strings(out)
	return out
}

// routePatterns lists every pattern the router registers, demo routes
// included.
func routePatterns() []string {
	a := &api{demoTargets: "demo", spa: fstest.MapFS{}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	return a.mux().patterns
}

// TestAuthorizationMatrixCoversEverything fails for a field or a route
// without a row, and for a row of a field or route that is gone.
func TestAuthorizationMatrixCoversEverything(t *testing.T) {
	rows := map[string]bool{}
	for _, r := range matrixRows() {
		rows[r.key] = true
	}
	want := map[string]string{}
	for _, f := range schemaFields(t) {
		want[f] = "GraphQL field"
	}
	for _, p := range routePatterns() {
		want[p] = "route"
	}
	for _, key := range slices.Sorted(maps.Keys(want)) {
		if !rows[key] {
			t.Errorf("%s %s has no row in the authorization matrix: add one to matrixRows (server/authz_matrix_test.go) "+
				"saying who may call it", want[key], key)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(rows)) {
		if want[key] == "" {
			t.Errorf("matrixRows has a row for %s, which is neither a field of the schema nor a route: remove it", key)
		}
	}
}

// matrixConfig writes manent.yml with a token per principal and the grants
// of matrixPrincipals, the environment configurations of both tenants and
// the marker tenant, and the artifact.
func matrixConfig(t *testing.T) (configPath, demoDir string) {
	t.Helper()
	dir := t.TempDir()
	var tokens, policy strings.Builder
	all := append(matrixPrincipals(), principal{name: "seeder", grants: []grant{{"*", deploy.PermAdmin}}})
	for _, p := range all {
		if p.anonymous() {
			continue
		}
		groups := []string{"marker"}
		if p.viewerOf != "" {
			groups = append(groups, "viewers-"+p.viewerOf)
		}
		fmt.Fprintf(&tokens, "    - {name: %s, sha256: %s, groups: [%s]}\n", p.name, hash(p.token()), strings.Join(groups, ", "))
		for _, g := range p.grants {
			fmt.Fprintf(&policy, "    p, token:%s, %s, *, %s\n", p.name, g.tenant, g.perm)
		}
	}
	for _, tenant := range []string{tenantA, tenantB} {
		fmt.Fprintf(&policy, "    p, group:viewers-%s, %s, *, %s\n", tenant, tenant, deploy.PermRead)
	}
	fmt.Fprintf(&policy, "    p, group:marker, %s, *, %s\n", tenantMarker, deploy.PermRead)
	files := map[string]string{
		"manent.yml": fmt.Sprintf(`server:
  executor_id: matrix
  default_tenant: ta
  work_dir: work
auth:
  tokens:
%s
rbac:
  policy: |
%s
envconfig:
  dir: envconfig
artifacts:
  sources: ["file:"]
  file_root: artifacts
pipeline:
  retry_interval: 10ms
  retry_max_interval: 100ms
queues:
  poll_interval: 20ms
governance:
  approvals:
    # Never satisfied: every principal allowed to approve may answer.
    - {name: prod, match: {environment: prod}, count: 100}
  promotion:
    # The promotion order: staging, then prod (satisfied in each tenant by
    # its own done deploy, the evidence of the approval context).
    - {name: staging-first, match: {environment: prod}, from: staging}
  freezes:
    - name: ta-freeze
      match: {tenant: ta, environment: frozen}
      absolute: [{from: "2000-01-01T00:00:00Z", to: "2100-01-01T00:00:00Z"}]
    - name: tb-freeze
      match: {tenant: tb, environment: frozen}
      absolute: [{from: "2000-01-01T00:00:00Z", to: "2100-01-01T00:00:00Z"}]
`, tokens.String(), policy.String()),
		"artifacts/hello-1.0.0.tar.gz": string(tarball(t, map[string]string{"index.html": "<p>hello</p>", "VERSION": "1.0.0"})),
	}
	for _, tenant := range []string{tenantA, tenantB, tenantMarker} {
		for _, env := range []string{"staging", "prod", "frozen"} {
			files["envconfig/"+tenant+"/hello/"+env+".yml"] = "plugin: local\ntargets:\n  - path: " +
				filepath.Join(dir, "targets", tenant, env) + "\n"
		}
	}
	// A rollout per request of a person (pause, resume, abort): each in an
	// environment of its own, since a running rollout holds its queue.
	for _, env := range []string{"fleet-pause", "fleet-resume", "fleet-abort"} {
		files["envconfig/"+tenantA+"/hello/"+env+".yml"] = fmt.Sprintf(`plugin: local
targets:
  - {path: %[1]s/1}
  - {path: %[1]s/2}
rollout:
  waves:
    - {name: first, count: 1}
    - {name: second, approval: true}
`, filepath.Join(dir, "targets", tenantA, env))
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	demoDir = filepath.Join(dir, "demo")
	if err := os.MkdirAll(demoDir, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "manent.yml"), demoDir
}

// startMatrixServer runs the whole server with the demo routes, so that
// every route of the router answers.
func startMatrixServer(t *testing.T, configPath, demoDir string) *Server {
	t.Helper()
	t.Setenv("DATABASE_URL", pgtest.URL(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	log := slog.New(slog.NewTextHandler(&testLog{t: t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := Main(ctx, Config{ConfigPath: configPath, Listen: "127.0.0.1:0", Logger: log, Role: RoleAll, DemoTargets: demoDir})
	if err != nil {
		t.Fatalf("server.Main: %v", err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(runCtx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return srv
}

// seed creates the objects the rows ask about, in both tenants, and waits
// (on events) until each is in the state the rows expect.
func (m *matrix) seedAll(t *testing.T) {
	t.Helper()
	submit := func(body string, want int) {
		t.Helper()
		if a := m.rest(m.seed, "POST", "/api/v1/deployments", body); a.status != want {
			t.Fatalf("seed: %s", a)
		}
	}
	for _, tenant := range []string{tenantA, tenantB} {
		submit(descriptorFor(tenant, tenant+"-done", "staging", ""), http.StatusAccepted)
		m.awaitDeploy(t, tenant+"-done", "SUCCESS")
		submit(descriptorFor(tenant, tenant+"-await", "prod", ""), http.StatusAccepted)
		submit(descriptorFor(tenant, tenant+"-nightly", "staging", "schedule: {cron: \"0 3 * * *\"}\n"), http.StatusCreated)
		if codes := graphQL(t, m.srv, m.seed.token(), `mutation($d: String!) { submitRelease(descriptor: $d) { id } }`,
			map[string]any{"d": releaseFor(tenant, tenant+"-release", tenant+"-rel-1", "staging")}, nil); len(codes) > 0 {
			t.Fatalf("seed %s-release: %v", tenant, codes)
		}
		if got := m.subscribe(m.seed, fmt.Sprintf(`subscription { releaseEvents(id: %q) { state } }`, tenant+"-release"), false); !strings.Contains(got.body, `"SUCCESS"`) {
			t.Fatalf("seed %s-release: %s", tenant, got.body)
		}
	}
	submit(descriptorFor(tenantA, "ta-reject", "prod", ""), http.StatusAccepted)
	submit(descriptorFor(tenantA, "ta-cancel", "prod", ""), http.StatusAccepted)
	if codes := graphQL(t, m.srv, m.seed.token(), `mutation($d: String!) { submitRelease(descriptor: $d) { id } }`,
		map[string]any{"d": releaseFor(tenantA, "ta-release-wait", "ta-rel-wait-1", "prod")}, nil); len(codes) > 0 {
		t.Fatalf("seed ta-release-wait: %v", codes)
	}
	submit(descriptorFor(tenantA, "ta-nightly-again", "staging", "schedule: {cron: \"0 3 * * *\"}\n"), http.StatusCreated)
	for _, p := range matrixPrincipals() {
		if name := scheduleOf(p); name != "ta-nightly" {
			submit(descriptorFor(tenantA, name, "staging", "schedule: {cron: \"0 3 * * *\"}\n"), http.StatusCreated)
		}
	}
	// The deploys awaiting an approval, the member of the waiting release
	// included: the rows about them read them there.
	for _, id := range []string{"ta-await", "tb-await", "ta-reject", "ta-cancel"} {
		m.awaitDeploy(t, id, "AWAITING_APPROVAL")
	}
	// A deploy of tb after one of ta: each side shows the other only to
	// who may read it.
	submit(descriptorFor(tenantB, "tb-after", "staging", "after: [ta-done]\n"), http.StatusAccepted)
	m.awaitDeploy(t, "tb-after", "SUCCESS")
	// A release over both tenants: readable by who reads both.
	if codes := graphQL(t, m.srv, m.seed.token(), `mutation($d: String!) { submitRelease(descriptor: $d) { id } }`,
		map[string]any{"d": crossRelease}, nil); len(codes) > 0 {
		t.Fatalf("seed tx-release: %v", codes)
	}
	if got := m.subscribe(m.seed, `subscription { releaseEvents(id: "tx-release") { state } }`, false); !strings.Contains(got.body, `"SUCCESS"`) {
		t.Fatalf("seed tx-release: %s", got.body)
	}
	// A dry run that ended, to redeploy as one.
	submit(descriptorFor(tenantA, "ta-dry", "staging", "dryRun: true\n"), http.StatusAccepted)
	m.awaitDeploy(t, "ta-dry", "SUCCESS")
	// A release whose deploy fails in a step (its artifact is missing).
	failing := strings.Replace(releaseFor(tenantA, "ta-release-fail", "ta-rel-fail-1", "staging"), "hello-1.0.0.tar.gz", "missing-1.0.0.tar.gz", 1)
	if codes := graphQL(t, m.srv, m.seed.token(), `mutation($d: String!) { submitRelease(descriptor: $d) { id } }`,
		map[string]any{"d": failing}, nil); len(codes) > 0 {
		t.Fatalf("seed ta-release-fail: %v", codes)
	}
	m.awaitState(t, `subscription { releaseEvents(id: "ta-release-fail") { state } }`, "ERROR")
	// The rollouts wait for the approval of their second wave; one is
	// paused.
	for _, env := range []string{"fleet-pause", "fleet-resume", "fleet-abort"} {
		submit(descriptorFor(tenantA, "ta-"+env, env, ""), http.StatusAccepted)
		m.awaitState(t, fmt.Sprintf(`subscription { deploymentEvents(id: "ta-%s") { deployment { rollout { state } } } }`, env), "AWAITING_APPROVAL")
	}
	// A person's pause waits for the next wave: asked, then the wave
	// approved (by another than the requester).
	if a := m.gql(m.seed, `mutation { pauseRollout(id: "ta-fleet-resume", reason: "seed") { id } }`); outcomeOf(a) != outAllowed {
		t.Fatalf("seed: pause: %s", a)
	}
	if a := m.gql(m.admin(), `mutation { approveDeployment(id: "ta-fleet-resume", comment: "seed") { id } }`); outcomeOf(a) != outAllowed {
		t.Fatalf("seed: approve the wave: %s", a)
	}
	m.awaitState(t, `subscription { deploymentEvents(id: "ta-fleet-resume") { deployment { rollout { state } } } }`, "PAUSED")
	// The release queues its deploy on its own: follow the release.
	m.awaitState(t, `subscription { releaseEvents(id: "ta-release-wait") { deploys { state } } }`, "AWAITING_APPROVAL")
}

// awaitDeploy follows a deploy until it is in state.
func (m *matrix) awaitDeploy(t *testing.T, id, state string) {
	t.Helper()
	m.awaitState(t, fmt.Sprintf(`subscription { deploymentEvents(id: %q) { deployment { state } } }`, id), state)
}

// awaitState follows a subscription until it shows state.
func (m *matrix) awaitState(t *testing.T, query, state string) {
	t.Helper()
	conn, err := dial(t, m.srv, nil, map[string]any{"token": m.seed.token()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	payload, _ := json.Marshal(map[string]any{"query": query})
	if err := conn.WriteJSON(wsMessage{Type: "subscribe", ID: "1", Payload: payload}); err != nil {
		t.Fatal(err)
	}
	for {
		_ = conn.SetReadDeadline(time.Now().Add(2 * time.Minute))
		_, raw, err := conn.ReadMessage()
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		if strings.Contains(string(raw), `"state":"`+state+`"`) {
			return
		}
		var msg wsMessage
		if json.Unmarshal(raw, &msg) == nil && (msg.Type == "complete" || msg.Type == "error") {
			t.Fatalf("%s ended before %s: %s", query, state, raw)
		}
	}
}

// subscribe runs a subscription over the websocket and returns its
// messages until it completes, or its first message when first is set.
// An anonymous connection_init is refused: the answer is the close.
func (m *matrix) subscribe(p principal, query string, first bool) answer {
	t := m.t
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: time.Minute}
	conn, resp, err := d.Dial("ws"+strings.TrimPrefix(m.srv.URL(), "http")+"/graphql", nil)
	if resp != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer func() { _ = conn.Close() }()
	init := map[string]any{}
	if !p.anonymous() {
		init["token"] = p.token()
	}
	payload, _ := json.Marshal(init)
	if err := conn.WriteJSON(wsMessage{Type: "connection_init", Payload: payload}); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	var ack wsMessage
	if err := conn.ReadJSON(&ack); err != nil {
		var ce *websocket.CloseError
		if errors.As(err, &ce) && ce.Code == closeForbidden {
			return answer{status: http.StatusUnauthorized, body: ce.Text}
		}
		t.Fatalf("connection_init: %v", err)
	}
	payload, _ = json.Marshal(map[string]any{"query": query})
	if err := conn.WriteJSON(wsMessage{Type: "subscribe", ID: "1", Payload: payload}); err != nil {
		t.Fatal(err)
	}
	var all []string
	for {
		_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
		_, raw, err := conn.ReadMessage()
		if err != nil {
			t.Fatalf("read: %v (so far %v)", err, all)
		}
		all = append(all, string(raw))
		var msg wsMessage
		if err := json.Unmarshal(raw, &msg); err != nil {
			t.Fatalf("message %s: %v", raw, err)
		}
		if msg.Type == "complete" || msg.Type == "error" || first && msg.Type == "next" {
			return answer{status: http.StatusOK, body: strings.Join(all, "\n")}
		}
	}
}

var codeRE = regexp.MustCompile(`"code":"([A-Z_]+)"`)

// outcomeOf tells what a client sees: the error code of GraphQL (the first
// error), of REST (the status), or none.
func outcomeOf(a answer) string {
	switch a.status {
	case http.StatusUnauthorized:
		return outUnauth
	case http.StatusForbidden:
		return outForbidden
	case http.StatusNotFound:
		return outHidden
	case http.StatusConflict:
		return outConflict
	case http.StatusUnprocessableEntity:
		return outUnprocessable
	case http.StatusInternalServerError:
		return outInternal
	}
	if m := codeRE.FindStringSubmatch(a.body); m != nil {
		switch m[1] {
		case "UNAUTHENTICATED":
			return outUnauth
		case "FORBIDDEN":
			return outForbidden
		case "NOT_FOUND":
			return outHidden
		case "CONFLICT":
			return outConflict
		case "UNPROCESSABLE", "INVALID_DESCRIPTOR":
			return outUnprocessable
		default:
			return outInternal
		}
	}
	return outAllowed
}

// TestAuthorizationMatrix asks every row as every principal and checks the
// outcome against the row's rule; see the top of this file.
func TestAuthorizationMatrix(t *testing.T) {
	configPath, demoDir := matrixConfig(t)
	srv := startMatrixServer(t, configPath, demoDir)
	m := &matrix{t: t, srv: srv, seed: principal{name: "seeder"}, missing: map[string]answer{}}
	rows := matrixRows()
	principals := matrixPrincipals()
	nobody := principal{name: "nobody"}

	// The answer about missing objects: before they exist, as an identity
	// that reads nothing of either tenant.
	for _, r := range rows {
		if r.run != nil || r.public {
			continue
		}
		if slices.ContainsFunc(principals, func(p principal) bool { return r.expect(p) == outHidden }) {
			by := nobody
			if r.missingAs != "" {
				by = principal{name: r.missingAs}
			}
			m.missing[r.label()] = r.ask(m, by)
		}
	}
	m.seedAll(t)

	for _, r := range rows {
		t.Run(r.label(), func(t *testing.T) {
			m.t = t
			defer func() { m.t = nil }()
			if r.run != nil {
				r.run(t, m)
				return
			}
			m.check(t, r, principals)
		})
	}
}

func (m *matrix) check(t *testing.T, r matrixRow, principals []principal) {
	// Refused requests first, between two reads of the state: they must
	// change nothing; then the allowed ones, which may.
	ordered := slices.Clone(principals)
	slices.SortStableFunc(ordered, func(x, y principal) int {
		return boolInt(r.expect(x) == outAllowed) - boolInt(r.expect(y) == outAllowed)
	})
	var before string
	if r.state != nil {
		before = r.state(m)
	}
	checkedState := false
	var public *answer
	adminFlag := ""
	for _, p := range ordered {
		want := r.expect(p)
		if want == outAllowed && r.state != nil && !checkedState {
			checkedState = true
			if after := r.state(m); after != before {
				t.Errorf("refused requests changed the state:\nbefore %s\nafter  %s", before, after)
			}
		}
		got := r.ask(m, p)
		out := outcomeOf(got)
		fail := func(format string, args ...any) {
			t.Helper()
			t.Errorf("%s: "+format+"\nanswer %s", append(append([]any{p}, args...), got)...)
		}
		switch {
		case r.public:
			// Below: the same answer for everyone.
		case want == outAllowed:
			if out != outAllowed && out != outConflict && !slices.Contains(r.also, out) {
				fail("got %s, want it allowed", out)
				continue
			}
			if r.whole && strings.Contains(got.body, `"errors"`) {
				fail("allowed, but a field of the answer failed")
			}
			if r.marker != "" && out == outAllowed && !strings.Contains(got.body, r.marker) {
				fail("allowed, but the answer lacks %s: the request does not reach the object", r.marker)
			}
		case want == outHidden:
			missing, ok := m.missing[r.label()]
			if !ok {
				t.Fatalf("no answer about a missing object for the row")
			}
			if got.String() != missing.String() {
				fail("got %s, want the answer about a missing object, byte for byte:\n%s", out, missing)
			}
		default:
			if out != want {
				fail("got %s, want %s", out, want)
			}
		}
		for tenant, marker := range r.lists {
			if want != outAllowed {
				break
			}
			if shown, sees := strings.Contains(got.body, marker), r.sees(p, tenant); shown != sees {
				fail("lists the objects of %s: %v, want %v", tenant, shown, sees)
			}
		}
		if r.flag != "" && want == outAllowed {
			value := flagValue(got.body, r.flag)
			if p.name == "admin" {
				adminFlag = value
				if r.flagMustHold && value != "true" {
					fail("%s of the admin = %s, want true: the seed does not allow it", r.flag, value)
				}
			}
			wantValue := "false"
			if p.holds(tenantA, r.flagPerm) && adminFlag == "true" {
				wantValue = "true"
			}
			if value != wantValue {
				fail("%s = %s, want %s", r.flag, value, wantValue)
			}
		}
		if r.public {
			if strings.Contains(got.body, "ta-") || strings.Contains(got.body, "tb-") {
				fail("a public route answers with tenant data")
			}
			if public == nil {
				public = &got
			} else if got.String() != public.String() {
				fail("a public route answers differently by identity:\n%s", public)
			}
		}
	}
	if r.state != nil && !checkedState {
		if after := r.state(m); after != before {
			t.Errorf("refused requests changed the state:\nbefore %s\nafter  %s", before, after)
		}
	}
}

func flagValue(body, field string) string {
	m := regexp.MustCompile(`"` + field + `":(true|false)`).FindStringSubmatch(body)
	if m == nil {
		return "absent"
	}
	return m[1]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// testActivityPerEvent: the activity feed authorizes every event. Every
// principal subscribes; a deploy of each tenant runs to its end, then one
// of the marker tenant, which every principal reads. Once a subscriber got
// the marker's end, it got every event before it: it must have seen the
// deploy of each tenant it reads, and no event of one it does not.
//
// Nothing can take a permission away from a running server (the policy and
// the tokens are read at start-up), so this is what per-event
// authorization can be shown on here; the feed reads every event through
// Service.Get with the subscriber's identity, the check a policy reload
// would change.
func testActivityPerEvent(t *testing.T, m *matrix) {
	type feed struct {
		p      principal
		events chan string
	}
	var feeds []feed
	for _, p := range matrixPrincipals() {
		if p.anonymous() {
			continue
		}
		conn, err := dial(t, m.srv, nil, map[string]any{"token": p.token()})
		if err != nil {
			t.Fatal(err)
		}
		payload, _ := json.Marshal(map[string]any{"query": `subscription { activity { kind deployment { id tenant state } } }`})
		if err := conn.WriteJSON(wsMessage{Type: "subscribe", ID: "1", Payload: payload}); err != nil {
			t.Fatal(err)
		}
		f := feed{p: p, events: make(chan string, 256)}
		go func() {
			defer close(f.events)
			for {
				_ = conn.SetReadDeadline(time.Now().Add(2 * time.Minute))
				_, raw, err := conn.ReadMessage()
				if err != nil {
					return
				}
				f.events <- string(raw)
			}
		}()
		feeds = append(feeds, f)
	}
	run := func(tenant, id string) {
		if a := m.rest(m.seed, "POST", "/api/v1/deployments", descriptorFor(tenant, id, "staging", "")); a.status != http.StatusAccepted {
			t.Fatalf("submit %s: %s", id, a)
		}
		m.awaitDeploy(t, id, "SUCCESS")
	}
	upTo := func(f feed, id string) []string {
		var got []string
		for ev := range f.events {
			got = append(got, ev)
			if strings.Contains(ev, `"id":"`+id+`"`) && strings.Contains(ev, `"state":"SUCCESS"`) {
				return got
			}
		}
		t.Fatalf("%s: the feed ended before %s succeeded: %v", f.p, id, got)
		return nil
	}
	// A subscription has no answer that says it is in place: it is once
	// it pushed a change. Run deploys of the marker until every feed got
	// one (a feed that was not in place for one gets it for the next).
	pending := feeds
	for round := 0; len(pending) > 0; round++ {
		if round == 20 {
			t.Fatalf("%d activity feeds got no event of %d deploys", len(pending), round)
		}
		run(tenantMarker, fmt.Sprintf("tm-ready-%d", round))
		var late []feed
		for _, f := range pending {
			timer := time.NewTimer(5 * time.Second)
			select {
			case _, ok := <-f.events:
				if !ok {
					t.Fatalf("%s: the activity feed ended", f.p)
				}
			case <-timer.C:
				late = append(late, f)
			}
			timer.Stop()
		}
		pending = late
	}
	// Every feed is in place: each gets every event from here on.
	run(tenantMarker, "tm-live-0")
	for _, f := range feeds {
		upTo(f, "tm-live-0")
	}
	run(tenantA, "ta-live")
	run(tenantB, "tb-live")
	run(tenantMarker, "tm-live-1")
	for _, f := range feeds {
		got := strings.Join(upTo(f, "tm-live-1"), "\n")
		for _, tenant := range []string{tenantA, tenantB} {
			if seen, reads := strings.Contains(got, `"tenant":"`+tenant+`"`), f.p.holds(tenant, deploy.PermRead); seen != reads {
				t.Errorf("%s: events of %s in the activity feed: %v, want %v\n%s", f.p, tenant, seen, reads, got)
			}
		}
		if reads := f.p.holds(tenantA, deploy.PermRead); reads && !strings.Contains(got, `"id":"ta-live"`) {
			t.Errorf("%s: the feed lacks ta-live\n%s", f.p, got)
		}
	}
}
