package postgres

// SubmitAudit is the deployment.submit entry CreateDeployment writes, for
// the tests that check it against what AppendAudit writes.
var SubmitAudit = submitAudit
