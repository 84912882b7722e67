package service

import (
	"context"
	"errors"

	"manent.dev/manent/deploy"
)

// everything is the resource of a global administrator: admin on it is
// held only through a policy line for every tenant and every object.
var everything = deploy.Resource{Tenant: "*", Application: "*", Environment: "*"}

// ListAudit implements deploy.Service. An entry is read by whoever may read
// what it is about (deployment.read on its deploy, its schedule, every
// deploy of its release), as recorded when it was written, so it stays
// with its tenant whoever takes its target's ID or name later; an entry
// about no environment only by a global administrator. An unreadable entry is left out, never reported: it
// looks like none.
func (s *Service) ListAudit(ctx context.Context, f deploy.AuditFilter) (deploy.AuditPage, error) {
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return deploy.AuditPage{}, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	if f.Since != nil && f.Until != nil && !f.Since.Before(*f.Until) {
		return deploy.AuditPage{}, deploy.Errorf(deploy.EUNPROCESSABLE, "since must be before until")
	}
	if f.First < 0 || f.First > deploy.MaxPageSize {
		return deploy.AuditPage{}, deploy.Errorf(deploy.EUNPROCESSABLE, "first must be between 1 and %d", deploy.MaxPageSize)
	}
	global := -1 // unknown until an entry needs it
	f.Readable = func(e deploy.AuditEntry) bool {
		if len(e.Resources) == 0 {
			if global < 0 {
				global = 0
				if ok, err := s.authz.Allowed(who, everything, deploy.PermAdmin); err == nil && ok {
					global = 1
				}
			}
			return global == 1
		}
		for _, r := range e.Resources {
			if !s.readable(who, r) {
				return false
			}
		}
		return true
	}
	return s.store.ListAudit(ctx, f)
}

// refusedCodes are the refusals written to the audit log: an attempt the
// permissions, the governance, the descriptor's checks or the state of its
// target refused. An anonymous caller has no identity to record, a target
// the caller may not read (NOT_FOUND) no target to name, and an internal
// error is the server's, logged with its ID.
var refusedCodes = map[deploy.Code]bool{
	deploy.EFORBIDDEN: true, deploy.EUNPROCESSABLE: true, deploy.EINVALID: true, deploy.ECONFLICT: true,
}

// auditRefused records a refused attempt at action on target as the action
// with ".refused": who tried, and the code and message the caller got,
// which are safe to show and name no secret. Any other outcome is left to
// the action's own entry.
func (s *Service) auditRefused(ctx context.Context, action, target string, err error, details map[string]any) {
	var de *deploy.Error
	if err == nil || !errors.As(err, &de) || !refusedCodes[de.Code] {
		return
	}
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return
	}
	if details == nil {
		details = map[string]any{}
	}
	details["code"], details["error"] = string(de.Code), de.Error()
	s.audit(ctx, who.Subject, action+".refused", target, details)
}
