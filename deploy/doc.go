// Package deploy holds manent's domain: deployments, their states and steps,
// plans, identities, the coded Error, and the interfaces the adapters implement
// (Store, Authorizer, Plugin, SecretProvider, Events).
//
// It imports only the standard library.
package deploy
