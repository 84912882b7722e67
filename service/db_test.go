package service_test

import (
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/internal/authz"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/service"
)

// migratedDB is a fresh database of the test's own with manent's schema,
// closed when the test ends.
func migratedDB(t *testing.T) *postgres.DB {
	t.Helper()
	return pgtest.Migrated(t, pgtest.URL(t))
}

// demoService is a service over store whose default tenant is demo and
// whose identities have the rights of the Casbin policy.
func demoService(t *testing.T, store service.Store, policy string) *service.Service {
	t.Helper()
	az, err := authz.New("", policy)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte("server: {default_tenant: demo}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.New(service.Options{Config: cfg, Store: store, Authorizer: az})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}
