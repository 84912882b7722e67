package authz_test

import (
	"strings"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/authz"
)

func demo(t *testing.T) *authz.Authorizer {
	t.Helper()
	t.Setenv("DATABASE_URL", "")
	c, err := config.Load("../../examples/manent.yml")
	if err != nil {
		t.Fatal(err)
	}
	a, err := authz.New(c.RBAC.Model, c.RBAC.Policy)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestDemoPolicy(t *testing.T) {
	a := demo(t)
	admin := deploy.Identity{Subject: "token:demo-admin"}
	ci := deploy.Identity{Subject: "token:demo-ci", Groups: []string{"ci"}}
	viewer := deploy.Identity{Subject: "token:demo-viewer", Groups: []string{"viewers"}}
	alice := deploy.Identity{Subject: "oidc:alice", Groups: []string{"release-managers"}}
	bob := deploy.Identity{Subject: "oidc:bob", Groups: []string{"developers"}}
	carol := deploy.Identity{Subject: "oidc:carol", Groups: []string{"viewers"}}
	helloStaging := deploy.Resource{Tenant: "demo", Application: "hello", Environment: "staging"}
	helloProd := deploy.Resource{Tenant: "demo", Application: "hello", Environment: "prod"}
	otherApp := deploy.Resource{Tenant: "demo", Application: "billing", Environment: "staging"}
	otherTenant := deploy.Resource{Tenant: "shop", Application: "hello", Environment: "staging"}
	tests := []struct {
		name string
		id   deploy.Identity
		res  deploy.Resource
		perm string
		want bool
	}{
		{"admin submits in demo", admin, helloStaging, deploy.PermSubmit, true},
		{"admin approves in another tenant", admin, otherTenant, deploy.PermApprove, true},
		{"admin overrides freezes anywhere", admin, otherApp, deploy.PermFreezeOverride, true},
		{"ci submits hello", ci, helloStaging, deploy.PermSubmit, true},
		{"ci dry-runs hello", ci, helloProd, deploy.PermDryRun, true},
		{"ci reads hello", ci, helloStaging, deploy.PermRead, true},
		{"ci cancels hello", ci, helloStaging, deploy.PermCancel, true},
		{"ci may not approve in staging", ci, helloStaging, deploy.PermApprove, false},
		{"ci approves hello in prod (not its own deploys: governance refuses that)", ci, helloProd, deploy.PermApprove, true},
		{"ci may not override a freeze", ci, helloProd, deploy.PermFreezeOverride, false},
		{"admin overrides the prod freeze", admin, helloProd, deploy.PermFreezeOverride, true},
		{"viewer may not approve", viewer, helloProd, deploy.PermApprove, false},
		{"ci may not roll back", ci, helloStaging, deploy.PermRollback, false},
		{"ci is not admin", ci, helloStaging, deploy.PermAdmin, false},
		{"ci only on the demo applications", ci, otherApp, deploy.PermSubmit, false},
		{"ci only in tenant demo", ci, otherTenant, deploy.PermSubmit, false},
		{"ci without its group holds nothing", deploy.Identity{Subject: "token:demo-ci"}, helloStaging, deploy.PermSubmit, false},
		{"viewer reads hello", viewer, helloStaging, deploy.PermRead, true},
		{"viewer reads every application of demo", viewer, otherApp, deploy.PermRead, true},
		{"viewer may not submit", viewer, helloStaging, deploy.PermSubmit, false},
		{"viewer may not dry-run", viewer, helloStaging, deploy.PermDryRun, false},
		{"viewer may not cancel", viewer, helloStaging, deploy.PermCancel, false},
		{"viewer reads nothing in another tenant", viewer, otherTenant, deploy.PermRead, false},
		{"anonymous holds nothing", deploy.Identity{}, helloStaging, deploy.PermRead, false},
		{"an unknown identity holds nothing", deploy.Identity{Subject: "token:someone"}, helloStaging, deploy.PermRead, false},
		{"a group named like a role is not the role", deploy.Identity{Subject: "oidc:eve", Groups: []string{"admin"}}, helloStaging, deploy.PermRead, false},
		{"a subject named like a role is not the role", deploy.Identity{Subject: "admin"}, helloStaging, deploy.PermRead, false},
		// The users of manent-server dev's OIDC provider.
		{"alice, release manager, approves in prod", alice, helloProd, deploy.PermApprove, true},
		{"alice rolls back", alice, otherApp, deploy.PermRollback, true},
		{"alice overrides a freeze", alice, helloProd, deploy.PermFreezeOverride, true},
		{"alice is not admin", alice, helloProd, deploy.PermAdmin, false},
		{"alice only in tenant demo", alice, otherTenant, deploy.PermRead, false},
		{"bob, developer, submits hello", bob, helloStaging, deploy.PermSubmit, true},
		{"bob may not roll back", bob, helloStaging, deploy.PermRollback, false},
		{"bob may not override a freeze", bob, helloProd, deploy.PermFreezeOverride, false},
		{"carol, viewer, reads", carol, helloProd, deploy.PermRead, true},
		{"carol may not submit", carol, helloStaging, deploy.PermSubmit, false},
		{"alice without her group holds nothing", deploy.Identity{Subject: "oidc:alice"}, helloStaging, deploy.PermRead, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := a.Allowed(tt.id, tt.res, tt.perm)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Allowed(%+v, %+v, %s) = %v, want %v", tt.id, tt.res, tt.perm, got, tt.want)
			}
		})
	}
}

func TestGlobsAndDirectGrants(t *testing.T) {
	a, err := authz.New("", `
# comments and blank lines are fine

p, oidc:alice, shop, */prod,      deployment.approve
p, releasers,  shop, web-*/*,     deployment.submit
p, role:ops,   *,    */prod,      deployment.rollback
g, oidc:bob,   releasers, shop
g, oidc:bob,   role:ops,  *
`)
	if err != nil {
		t.Fatal(err)
	}
	alice := deploy.Identity{Subject: "oidc:alice"}
	bob := deploy.Identity{Subject: "oidc:bob"}
	res := func(app, env string) deploy.Resource {
		return deploy.Resource{Tenant: "shop", Application: app, Environment: env}
	}
	tests := []struct {
		name string
		id   deploy.Identity
		res  deploy.Resource
		perm string
		want bool
	}{
		{"*/prod matches prod of any application", alice, res("billing", "prod"), deploy.PermApprove, true},
		{"*/prod does not match staging", alice, res("billing", "staging"), deploy.PermApprove, false},
		{"* does not cross the /", alice, res("billing", "prod-eu"), deploy.PermApprove, false},
		{"web-*/* through a role", bob, res("web-shop", "prod"), deploy.PermSubmit, true},
		{"web-*/* does not match web", bob, res("web", "prod"), deploy.PermSubmit, false},
		{"a role:-prefixed role in every tenant", bob, deploy.Resource{Tenant: "demo", Application: "x", Environment: "prod"}, deploy.PermRollback, true},
		{"the role is granted in shop only", bob, deploy.Resource{Tenant: "demo", Application: "web-shop", Environment: "prod"}, deploy.PermSubmit, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := a.Allowed(tt.id, tt.res, tt.perm)
			if err != nil || got != tt.want {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestAdminOfEveryObject pins what the GraphQL API asks to decide who is
// an administrator (graph.Administrators): admin on the object */* of a
// tenant is held only through a grant on every object of it.
func TestAdminOfEveryObject(t *testing.T) {
	a, err := authz.New("", `
p, oidc:root,       shop, *,      admin
p, oidc:everywhere, *,    *,      admin
p, oidc:web,        shop, web/*,  admin
p, oidc:prod,       shop, */prod, admin
p, oidc:reader,     shop, *,      deployment.read
`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		subject, tenant string
		want            bool
	}{
		{"oidc:root", "shop", true},
		{"oidc:root", "demo", false},
		{"oidc:everywhere", "shop", true},
		{"oidc:everywhere", "demo", true},
		{"oidc:web", "shop", false},
		{"oidc:prod", "shop", false},
		{"oidc:reader", "shop", false},
	}
	for _, tt := range tests {
		every := deploy.Resource{Tenant: tt.tenant, Application: "*", Environment: "*"}
		got, err := a.Allowed(deploy.Identity{Subject: tt.subject}, every, deploy.PermAdmin)
		if err != nil || got != tt.want {
			t.Errorf("%s admin on %s/*/*: got %v, %v; want %v", tt.subject, tt.tenant, got, err, tt.want)
		}
	}
}

func TestNewRefusesBadPolicies(t *testing.T) {
	tests := []struct {
		name   string
		model  string
		policy string
		want   string
	}{
		{
			name: "every bad line is reported with its number",
			policy: "p, admin, *, *, admin\n" +
				"p, ci, demo, hello/*, deployment.submt\n" +
				"p, ci, Demo, hello/*, deployment.read\n" +
				"p, ci, demo, hello, deployment.read\n" +
				"p, ci, demo, [x/y, deployment.read\n" +
				"g, token:x, ci\n" +
				"p2, a, b, c, d\n" +
				"p, ci, demo, , deployment.read\n" +
				"g, token:x, group:ci, demo\n",
			want: `rbac policy: line 2: unknown permission "deployment.submt" (known: deployment.submit, deployment.dry-run, deployment.read, deployment.cancel, deployment.approve, deployment.rollback, deployment.freeze-override, admin); ` +
				`line 3: tenant "Demo" must be * or a tenant name; ` +
				`line 4: object "hello" must be * or an <application>/<environment> glob such as hello/* or */prod; ` +
				`line 5: object "[x/y" must be * or an <application>/<environment> glob such as hello/* or */prod; ` +
				`line 6: g needs 3 values: subject, role, tenant; ` +
				`line 7: unknown policy type "p2": the built-in model has p and g; ` +
				`line 8: empty value; ` +
				`line 9: role "group:ci" must not look like an identity (token:, oidc:, group:)`,
		},
		{
			name:  "a model that does not parse",
			model: "[request_definition]\nr = sub\n",
			want:  "rbac model:",
		},
		{
			name:  "a model calling an unknown function fails at start-up",
			model: strings.Replace(authz.DefaultModel, "objectMatch(r.obj, p.obj)", "nosuch(r.obj, p.obj)", 1),
			want:  "rbac model:",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := authz.New(tt.model, tt.policy)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v, want prefix %q", err, tt.want)
			}
		})
	}
}

func TestCustomModel(t *testing.T) {
	// Without domains: the tenant is ignored, and lines are not checked
	// against the built-in shape.
	model := `
[request_definition]
r = sub, dom, obj, act

[policy_definition]
p = sub, obj, act

[policy_effect]
e = some(where (p.eft == allow))

[matchers]
m = r.sub == p.sub && objectMatch(r.obj, p.obj) && r.act == p.act
`
	a, err := authz.New(model, "p, token:ci, hello/*, deployment.submit\n")
	if err != nil {
		t.Fatal(err)
	}
	ok, err := a.Allowed(deploy.Identity{Subject: "token:ci"}, deploy.Resource{Tenant: "any", Application: "hello", Environment: "prod"}, deploy.PermSubmit)
	if err != nil || !ok {
		t.Fatalf("got %v, %v", ok, err)
	}
}

func TestMatchers(t *testing.T) {
	for _, tt := range []struct {
		obj, pattern string
		want         bool
	}{
		{"hello/staging", "*", true},
		{"hello/staging", "*/*", true},
		{"hello/staging", "hello/*", true},
		{"hello/staging", "hello/staging", true},
		{"hello/staging", "hello", false},
		{"hello/staging", "*/prod", false},
		{"hello/staging", "[", false},
	} {
		if got := authz.ObjectMatch(tt.obj, tt.pattern); got != tt.want {
			t.Errorf("ObjectMatch(%q, %q) = %v", tt.obj, tt.pattern, got)
		}
	}
	if !authz.DomainMatch("demo", "*") || !authz.DomainMatch("demo", "demo") || authz.DomainMatch("demo", "shop") {
		t.Error("DomainMatch")
	}
}

// TestConcurrentUse is meant for -race: every request of the server shares
// one Authorizer.
func TestConcurrentUse(t *testing.T) {
	a := demo(t)
	ci := deploy.Identity{Subject: "token:demo-ci", Groups: []string{"ci"}}
	done := make(chan bool)
	for i := range 8 {
		go func() {
			res := deploy.Resource{Tenant: "demo", Application: "hello", Environment: "env" + string(rune('a'+i))}
			ok, err := a.Allowed(ci, res, deploy.PermSubmit)
			done <- ok && err == nil
		}()
	}
	for range 8 {
		if !<-done {
			t.Error("a concurrent check failed")
		}
	}
}

func TestHasRole(t *testing.T) {
	a := demo(t)
	tests := []struct {
		name   string
		id     deploy.Identity
		tenant string
		role   string
		want   bool
	}{
		{"through a group", deploy.Identity{Subject: "token:demo-ci", Groups: []string{"ci"}}, "demo", "deployer", true},
		{"not in another tenant", deploy.Identity{Subject: "token:demo-ci", Groups: []string{"ci"}}, "shop", "deployer", false},
		{"granted in every tenant", deploy.Identity{Subject: "token:demo-admin"}, "anything", "admin", true},
		{"another role", deploy.Identity{Subject: "token:demo-ci", Groups: []string{"ci"}}, "demo", "admin", false},
		{"anonymous", deploy.Identity{}, "demo", "deployer", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := a.HasRole(tt.id, tt.tenant, tt.role)
			if err != nil || got != tt.want {
				t.Fatalf("HasRole = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestGroupNamesOfProviders: the group names providers send (Okta's with
// spaces, Keycloak's paths, Entra's object IDs) are granted by the policy
// as written in docs/oidc.md.
func TestGroupNamesOfProviders(t *testing.T) {
	a, err := authz.New("", `p, release-manager, demo, *, deployment.approve
g, "group:Release Managers", release-manager, demo
g, group:/ops/release, release-manager, demo
g, group:4f3c1c2e-8d1b-4f6e-9a51-2b7c0d9e1f30, release-manager, demo
`)
	if err != nil {
		t.Fatal(err)
	}
	res := deploy.Resource{Tenant: "demo", Application: "hello", Environment: "prod"}
	for _, g := range []string{"Release Managers", "/ops/release", "4f3c1c2e-8d1b-4f6e-9a51-2b7c0d9e1f30"} {
		if ok, err := a.Allowed(deploy.Identity{Subject: "oidc:alice", Groups: []string{g}}, res, deploy.PermApprove); err != nil || !ok {
			t.Errorf("group %q: %v %v", g, ok, err)
		}
	}
	if ok, _ := a.Allowed(deploy.Identity{Subject: "oidc:alice", Groups: []string{"Release"}}, res, deploy.PermApprove); ok {
		t.Error("a group was matched by a prefix of its name")
	}
}
