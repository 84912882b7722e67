// Package authz is the Casbin enforcer behind deploy.Authorizer: identities
// and their groups hold roles per tenant (Casbin domain) on
// <application>/<environment> objects.
//
// It imports deploy, descriptor, github.com/casbin/casbin/v2 and the standard library.
package authz
