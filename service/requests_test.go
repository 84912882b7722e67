package service_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/service"
)

// auditOnly is a store that only keeps audit entries: a request refused for
// what it names reads nothing else.
type auditOnly struct {
	service.Store
	entries []deploy.AuditEntry
}

func (s *auditOnly) AppendAudit(_ context.Context, e deploy.AuditEntry) error {
	s.entries = append(s.entries, e)
	return nil
}

func newRequestsService(t *testing.T) (*service.Service, *auditOnly, context.Context) {
	t.Helper()
	store := &auditOnly{}
	svc := demoService(t, store, "p, token:admin, *, *, admin\n")
	return svc, store, deploy.WithIdentity(t.Context(), deploy.Identity{Subject: "token:admin"})
}

// TestEnvironmentNamesAreChecked: the environment query of a name that can
// be none (empty, upper case, too long) is INVALID, saying which, before
// anything is read.
func TestEnvironmentNamesAreChecked(t *testing.T) {
	svc, _, ctx := newRequestsService(t)
	for _, tt := range []struct {
		res  deploy.Resource
		path string
	}{
		{deploy.Resource{Application: "", Environment: "prod"}, "application"},
		{deploy.Resource{Application: "hello", Environment: ""}, "environment"},
		{deploy.Resource{Tenant: "Demo", Application: "hello", Environment: "prod"}, "tenant"},
		{deploy.Resource{Application: "hello", Environment: strings.Repeat("e", 64)}, "environment"},
	} {
		_, err := svc.Environment(ctx, tt.res)
		var de *deploy.Error
		if !errors.As(err, &de) || de.Code != deploy.EINVALID || len(de.Fields) != 1 || de.Fields[0].Path != tt.path {
			t.Errorf("Environment(%+v) = %v, want INVALID at %s", tt.res, err, tt.path)
		}
	}
}

// TestARefusedRollbackAuditsABoundedRecord: a rollback is checked for what
// it names before anything is read, and its refusal records a bounded
// trace of what the caller sent, never the value itself.
func TestARefusedRollbackAuditsABoundedRecord(t *testing.T) {
	svc, store, ctx := newRequestsService(t)
	huge := strings.Repeat("x", 1<<20) + "\x00"
	_, err := svc.RollbackTo(ctx, deploy.RollbackRequest{Application: "hello", Environment: huge, To: huge})
	if deploy.ErrorCode(err) != deploy.EINVALID {
		t.Fatalf("rollback of %d bytes: %v, want INVALID", len(huge), err)
	}
	if len(store.entries) != 1 {
		t.Fatalf("audit entries: %d", len(store.entries))
	}
	e := store.entries[0]
	if e.Action != "deployment.rollback.refused" || len(e.Target) > 512 || !strings.Contains(e.Target, "1048577 bytes") {
		t.Errorf("target %.200q of %d bytes", e.Target, len(e.Target))
	}
	for _, k := range []string{"environment", "to"} {
		v, ok := e.Details[k].(map[string]any)
		if !ok || v["bytes"] != len(huge) || len(v["sha256"].(string)) != 64 || len(v["prefix"].(string)) > 3*64 {
			t.Errorf("details[%s] = %.200v", k, e.Details[k])
		}
	}
	if msg, ok := e.Details["error"].(string); !ok || len(msg) > 1024 {
		t.Errorf("details[error] = %.200v", e.Details["error"])
	}
	if e.Details["application"] != "hello" {
		t.Errorf("a short value is recorded as it is: %v", e.Details["application"])
	}
}
