package graph

import (
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

// answerMemo holds what the resolvers of one answer (a query, a mutation,
// one push of a subscription) read once for all of its fields, whatever
// their number: the rollbacks of an environment (its canRollback, and the
// canRollbackTo of every row of its history), its inventory entry (the
// approval context of every deploy of an inbox waiting there), a deploy an
// affordance needs that its parent does not carry. It lives as long as the
// answer, with its caller's identity: the next push of a subscription
// reads again.
type answerMemo struct {
	mu           sync.Mutex
	rollbacks    memoTable[deploy.Resource, deploy.RollbackChoice]
	environments memoTable[deploy.Resource, *deploy.InventoryEntry]
	deploys      memoTable[string, *deploy.Deployment]
}

// memoTable is one kind of read of an answerMemo, by key; each is made
// once, by the first resolver that needs it, while the others wait for it.
type memoTable[K comparable, V any] map[K]*memoEntry[V]

type memoEntry[V any] struct {
	once sync.Once
	v    V
	err  error
}

type memoKey struct{}

// Memoize gives every answer of the handler an answerMemo of its own.
func Memoize(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	return next(context.WithValue(ctx, memoKey{}, &answerMemo{}))
}

// remember returns the read of key in the table of ctx's memo that pick
// gives, reading it with read the first time; without a memo (a resolver
// run outside the handler) every call reads.
func remember[K comparable, V any](ctx context.Context, pick func(*answerMemo) *memoTable[K, V], key K, read func() (V, error)) (V, error) {
	m, _ := ctx.Value(memoKey{}).(*answerMemo)
	if m == nil {
		return read()
	}
	m.mu.Lock()
	t := pick(m)
	if *t == nil {
		*t = memoTable[K, V]{}
	}
	e := (*t)[key]
	if e == nil {
		e = &memoEntry[V]{}
		(*t)[key] = e
	}
	m.mu.Unlock()
	e.once.Do(func() { e.v, e.err = read() })
	return e.v, e.err
}

// rollbacksOf is what the caller may roll res back to, read once per answer.
func (r *Resolver) rollbacksOf(ctx context.Context, res deploy.Resource) deploy.RollbackChoice {
	c, _ := remember(ctx, func(m *answerMemo) *memoTable[deploy.Resource, deploy.RollbackChoice] { return &m.rollbacks }, res,
		func() (deploy.RollbackChoice, error) { return r.Service.Rollbacks(ctx, res), nil })
	return c
}

// environmentOf is the inventory entry of res, read once per answer.
func (r *Resolver) environmentOf(ctx context.Context, res deploy.Resource) (*deploy.InventoryEntry, error) {
	return remember(ctx, func(m *answerMemo) *memoTable[deploy.Resource, *deploy.InventoryEntry] { return &m.environments }, res,
		func() (*deploy.InventoryEntry, error) { return r.Service.Environment(ctx, res) })
}

// sourceOf is the deploy obj was converted from, as read for the caller;
// read (once per answer) when obj was made without one.
func (r *Resolver) sourceOf(ctx context.Context, obj *model.Deployment) (*deploy.Deployment, error) {
	if obj.Source != nil {
		return obj.Source, nil
	}
	return r.deploymentOf(ctx, obj.ID)
}

// deploymentOf is the deploy id as Service.Get reads it, once per answer.
func (r *Resolver) deploymentOf(ctx context.Context, id string) (*deploy.Deployment, error) {
	return remember(ctx, func(m *answerMemo) *memoTable[string, *deploy.Deployment] { return &m.deploys }, id,
		func() (*deploy.Deployment, error) { return r.Service.Get(ctx, id) })
}

func resourceOfModel(d *model.Deployment) deploy.Resource {
	return deploy.Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
}
