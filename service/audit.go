package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

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
	// What the caller sent is recorded bounded: a refusal is often the
	// refusal of the value itself (a name too long, an ID that is none),
	// and the log is append-only.
	bounded := make(map[string]any, len(details)+2)
	for k, v := range details {
		if text, ok := v.(string); ok {
			v = auditValue(text, maxAuditValue)
		}
		bounded[k] = v
	}
	bounded["code"], bounded["error"] = string(de.Code), auditValue(de.Error(), maxAuditError)
	s.audit(ctx, who.Subject, action+".refused", auditTarget(target), bounded)
}

// The bounds of what a refusal records of the caller's input: a value
// (any valid name or ID is shorter), the message the caller got (it may
// quote a value), and the prefix kept of a longer or unprintable one.
const (
	maxAuditValue  = 256
	maxAuditError  = 1024
	auditPrefixLen = 64
)

// auditValue is s when it is short and printable, or else what identifies
// it without holding it: an escaped prefix, its length in bytes and its
// SHA-256. NUL and invalid UTF-8 count as unprintable: PostgreSQL's jsonb
// refuses the first, JSON cannot carry the second.
func auditValue(s string, most int) any {
	if len(s) <= most && printable(s) {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return map[string]any{"prefix": strconv.QuoteToASCII(prefix(s, auditPrefixLen)), "bytes": len(s),
		"sha256": hex.EncodeToString(sum[:])}
}

// auditTarget is the target of a refusal as auditValue bounds it, in one
// string: the column is text, and its filter matches it whole.
func auditTarget(s string) string {
	if len(s) <= maxAuditValue && printable(s) {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%s…(%d bytes, sha256 %s)", strconv.QuoteToASCII(prefix(s, auditPrefixLen)), len(s), hex.EncodeToString(sum[:]))
}

func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// prefix is the first n bytes of s at most, not cutting a rune.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
