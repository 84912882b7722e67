package deploy

import "time"

// Retention is how long finished deploys, log lines, audit entries and
// the facts of the DORA metrics are kept; a zero duration keeps that kind
// forever.
type Retention struct {
	Deployments time.Duration
	Logs        time.Duration
	Audit       time.Duration
	Dora        time.Duration
}

// Purged is what one run of the retention removed.
type Purged struct {
	Deployments []string `json:"deployment_ids"`
	Logs        int64    `json:"log_lines"`
	Audit       int64    `json:"audit_entries"`
	// DoraFacts is how many facts of the DORA metrics expired.
	DoraFacts int64 `json:"dora_facts"`
	// AuditFirst and AuditLast bound the IDs of the audit entries removed.
	AuditFirst int64 `json:"audit_first_id,omitempty"`
	AuditLast  int64 `json:"audit_last_id,omitempty"`
}

// RetentionActor is the identity the retention's audit entries are written
// under.
const RetentionActor = "manent:retention"
