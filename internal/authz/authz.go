package authz

import (
	"encoding/csv"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/casbin/casbin/v2"
	"github.com/casbin/casbin/v2/model"
	"github.com/casbin/casbin/v2/persist"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

// DefaultModel is RBAC with domains: a role is granted in a tenant, or in
// every tenant with the domain *; objects are <application>/<environment>
// globs; the permission admin implies every other.
const DefaultModel = `
[request_definition]
r = sub, dom, obj, act

[policy_definition]
p = sub, dom, obj, act

[role_definition]
g = _, _, _

[policy_effect]
e = some(where (p.eft == allow))

[matchers]
m = g(r.sub, p.sub, r.dom) && domainMatch(r.dom, p.dom) && objectMatch(r.obj, p.obj) && (r.act == p.act || p.act == "admin")
`

// GroupPrefix turns a group of an identity into a Casbin subject, so that a
// group can never be mistaken for a role or a user of the same name.
const GroupPrefix = "group:"

// Permissions are the permissions a policy of the built-in model may grant.
var Permissions = []string{
	deploy.PermSubmit, deploy.PermDryRun, deploy.PermRead, deploy.PermCancel,
	deploy.PermApprove, deploy.PermRollback, deploy.PermFreezeOverride, deploy.PermAdmin,
}

// Authorizer implements deploy.Authorizer. It is safe for concurrent use.
type Authorizer struct {
	// e is swapped whole by Replace: a decision reads one policy, the old
	// or the new, never a mix.
	e atomic.Pointer[casbin.SyncedEnforcer]
}

var _ deploy.Authorizer = (*Authorizer)(nil)

// New builds the enforcer from a Casbin model (DefaultModel when empty) and
// a policy in Casbin's CSV form. With the built-in model every line is
// checked (known permission, tenant, object glob) so that a typo fails at
// start-up instead of silently granting nothing.
func New(modelText, policy string) (*Authorizer, error) {
	e, err := enforcer(modelText, policy)
	if err != nil {
		return nil, err
	}
	a := &Authorizer{}
	a.e.Store(e)
	return a, nil
}

// Replace puts the model and policy in force for every decision from now
// on, a subscription's next event included; on an error the policy in
// force stays.
func (a *Authorizer) Replace(modelText, policy string) error {
	e, err := enforcer(modelText, policy)
	if err != nil {
		return err
	}
	a.e.Store(e)
	return nil
}

func enforcer(modelText, policy string) (*casbin.SyncedEnforcer, error) {
	builtin := strings.TrimSpace(modelText) == ""
	if builtin {
		modelText = DefaultModel
	}
	m, err := model.NewModelFromString(modelText)
	if err != nil {
		return nil, fmt.Errorf("rbac model: %w", err)
	}
	e, err := casbin.NewSyncedEnforcer(m)
	if err != nil {
		return nil, fmt.Errorf("rbac model: %w", err)
	}
	e.AddFunction("domainMatch", matchFunc(DomainMatch))
	e.AddFunction("objectMatch", matchFunc(ObjectMatch))
	// Lets g, <user>, <role>, * grant the role in every tenant.
	e.AddNamedDomainMatchingFunc("g", "domainMatch", DomainMatch)
	rules, err := parsePolicy(policy, builtin)
	if err != nil {
		return nil, err
	}
	for _, r := range rules {
		if err := persist.LoadPolicyArray(r.fields, e.GetModel()); err != nil {
			return nil, fmt.Errorf("rbac policy: line %d: %w", r.line, err)
		}
	}
	if err := e.BuildRoleLinks(); err != nil {
		return nil, fmt.Errorf("rbac policy: %w", err)
	}
	// A custom model may call a function that does not exist or expect
	// another request shape: find out now, not on the first request.
	if _, err := e.Enforce("token:probe", "probe", "probe/probe", deploy.PermRead); err != nil {
		return nil, fmt.Errorf("rbac model: %w", err)
	}
	return e, nil
}

// Allowed reports whether the identity, or one of its groups, holds perm on
// res. An anonymous identity holds nothing, and neither does a subject
// without a kind (token:, oidc:): Casbin takes a subject equal to a role name
// for the role itself, so only subjects that cannot be role names are asked.
func (a *Authorizer) Allowed(id deploy.Identity, res deploy.Resource, perm string) (bool, error) {
	if id.Anonymous() || !strings.Contains(id.Subject, ":") {
		return false, nil
	}
	subjects := make([]string, 0, 1+len(id.Groups))
	subjects = append(subjects, id.Subject)
	for _, g := range id.Groups {
		subjects = append(subjects, GroupPrefix+g)
	}
	// One policy for the whole decision: a Replace between two subjects
	// would otherwise ask the identity under one policy and its groups
	// under another, an answer neither policy gives.
	e := a.e.Load()
	for _, s := range subjects {
		ok, err := e.Enforce(s, res.Tenant, res.Object(), perm)
		if err != nil {
			return false, fmt.Errorf("authorize: %w", err)
		}
		if ok {
			return true, nil
		}
		if betweenSubjects != nil {
			betweenSubjects()
		}
	}
	return false, nil
}

// betweenSubjects, when set (by tests only), runs between the subjects of
// a decision: where a policy reload could fall.
var betweenSubjects func()

// HasRole implements deploy.Authorizer: roles granted in the tenant or in
// every tenant (*), directly or through other roles, to the identity or
// one of its groups.
func (a *Authorizer) HasRole(id deploy.Identity, tenant, role string) (bool, error) {
	if id.Anonymous() || !strings.Contains(id.Subject, ":") {
		return false, nil
	}
	subjects := []string{id.Subject}
	for _, g := range id.Groups {
		subjects = append(subjects, GroupPrefix+g)
	}
	e := a.e.Load() // one policy for the whole decision, as in Allowed
	for _, s := range subjects {
		roles, err := e.GetImplicitRolesForUser(s, tenant)
		if err != nil {
			return false, fmt.Errorf("read roles: %w", err)
		}
		if slices.Contains(roles, role) {
			return true, nil
		}
		if betweenSubjects != nil {
			betweenSubjects()
		}
	}
	return false, nil
}

// DomainMatch reports whether a tenant matches a policy domain: itself or *.
func DomainMatch(tenant, pattern string) bool {
	return pattern == "*" || tenant == pattern
}

// ObjectMatch reports whether an <application>/<environment> object matches
// a policy glob: * matches everything, otherwise path.Match, whose * does
// not cross the / (hello/* is every environment of hello, */prod is prod of
// every application).
func ObjectMatch(object, pattern string) bool {
	if pattern == "*" {
		return true
	}
	ok, err := path.Match(pattern, object)
	return err == nil && ok
}

func matchFunc(fn func(string, string) bool) func(args ...any) (any, error) {
	return func(args ...any) (any, error) {
		if len(args) != 2 {
			return false, errors.New("expects 2 arguments")
		}
		a, ok1 := args[0].(string)
		b, ok2 := args[1].(string)
		if !ok1 || !ok2 {
			return false, errors.New("expects strings")
		}
		return fn(a, b), nil
	}
}

type rule struct {
	line   int
	fields []string
}

// parsePolicy reads Casbin's CSV policy, skipping blank lines and # comments,
// and reports every problem with its line.
func parsePolicy(policy string, builtin bool) ([]rule, error) {
	var rules []rule
	var problems []string
	for i, line := range strings.Split(policy, "\n") {
		n := i + 1
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := csv.NewReader(strings.NewReader(line))
		r.TrimLeadingSpace = true
		fields, err := r.Read()
		if err != nil {
			problems = append(problems, fmt.Sprintf("line %d: %v", n, err))
			continue
		}
		for j := range fields {
			fields[j] = strings.TrimSpace(fields[j])
		}
		if builtin {
			if msg := checkRule(fields); msg != "" {
				problems = append(problems, fmt.Sprintf("line %d: %s", n, msg))
				continue
			}
		} else if fields[0] == "" {
			problems = append(problems, fmt.Sprintf("line %d: missing policy type", n))
			continue
		}
		rules = append(rules, rule{line: n, fields: fields})
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("rbac policy: %s", strings.Join(problems, "; "))
	}
	return rules, nil
}

// checkRule validates a line against the built-in model.
func checkRule(f []string) string {
	switch f[0] {
	case "p":
		if len(f) != 5 {
			return "p needs 4 values: subject, tenant, object, permission"
		}
		if slices.Contains(f[1:], "") {
			return "empty value"
		}
		if msg := checkDomain(f[2]); msg != "" {
			return msg
		}
		if _, err := path.Match(f[3], ""); err != nil || strings.Count(f[3], "/") > 1 || (f[3] != "*" && !strings.Contains(f[3], "/")) {
			return fmt.Sprintf("object %q must be * or an <application>/<environment> glob such as hello/* or */prod", f[3])
		}
		if !slices.Contains(Permissions, f[4]) {
			return fmt.Sprintf("unknown permission %q (known: %s)", f[4], strings.Join(Permissions, ", "))
		}
	case "g":
		if len(f) != 4 {
			return "g needs 3 values: subject, role, tenant"
		}
		if slices.Contains(f[1:], "") {
			return "empty value"
		}
		if isIdentity(f[2]) {
			return fmt.Sprintf("role %q must not look like an identity (token:, oidc:, group:)", f[2])
		}
		return checkDomain(f[3])
	default:
		return fmt.Sprintf("unknown policy type %q: the built-in model has p and g", f[0])
	}
	return ""
}

// identityKinds are the prefixes of the subjects authenticators produce; a
// role named like one could be held by whoever has that identity.
var identityKinds = []string{"token:", "oidc:", GroupPrefix}

func isIdentity(name string) bool {
	for _, k := range identityKinds {
		if strings.HasPrefix(name, k) {
			return true
		}
	}
	return false
}

func checkDomain(d string) string {
	if d != "*" && !descriptor.ValidName(d) {
		return fmt.Sprintf("tenant %q must be * or a tenant name", d)
	}
	return ""
}

// Holders lists the subjects the policy grants perm on res (admin
// included): the roles, groups (group:<name>) and identities of its p
// lines, sorted, each once. It reads the policy as written; it does not
// expand roles into their members, which a status would not show anyway.
func (a *Authorizer) Holders(res deploy.Resource, perm string) ([]string, error) {
	rules, err := a.e.Load().GetPolicy()
	if err != nil {
		return nil, fmt.Errorf("read policy: %w", err)
	}
	var subs []string
	for _, p := range rules {
		if len(p) < 4 || !DomainMatch(res.Tenant, p[1]) || !ObjectMatch(res.Object(), p[2]) {
			continue
		}
		if (p[3] == perm || p[3] == deploy.PermAdmin) && !slices.Contains(subs, p[0]) {
			subs = append(subs, p[0])
		}
	}
	slices.Sort(subs)
	return subs, nil
}
