ALTER TABLE manent.deployments DROP COLUMN IF EXISTS approval_expires_at;
DROP TABLE IF EXISTS manent.approvals;
