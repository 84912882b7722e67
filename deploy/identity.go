package deploy

import "context"

// Identity is who makes a request: token:<name> or oidc:<user>, with groups.
type Identity struct {
	Subject string
	Groups  []string
}

// Anonymous reports whether no one is signed in.
func (i Identity) Anonymous() bool { return i.Subject == "" }

// Permissions of the RBAC model.
const (
	PermSubmit         = "deployment.submit"
	PermDryRun         = "deployment.dry-run"
	PermRead           = "deployment.read"
	PermCancel         = "deployment.cancel"
	PermApprove        = "deployment.approve"
	PermRollback       = "deployment.rollback"
	PermFreezeOverride = "deployment.freeze-override"
	PermAdmin          = "admin"
)

// Resource is what a permission is checked on.
type Resource struct {
	Tenant      string
	Application string
	Environment string
}

// Object is the Casbin object of the resource: application/environment.
func (r Resource) Object() string { return r.Application + "/" + r.Environment }

// Authorizer decides whether an identity holds a permission on a resource.
type Authorizer interface {
	// Allowed reports whether id holds perm on res (directly or through a group).
	Allowed(id Identity, res Resource, perm string) (bool, error)
	// HasRole reports whether id (or one of its groups) holds the RBAC role
	// in the tenant, directly or through other roles.
	HasRole(id Identity, tenant, role string) (bool, error)
}

// Authenticator turns a bearer credential into an identity.
type Authenticator interface {
	// Authenticate returns the identity of the token, or an *Error with
	// EUNAUTHENTICATED.
	Authenticate(ctx context.Context, token string) (Identity, error)
}

type identityKey struct{}

// WithIdentity returns a context that carries id.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity carried by ctx, anonymous if none.
func IdentityFrom(ctx context.Context) Identity {
	id, _ := ctx.Value(identityKey{}).(Identity)
	return id
}
