ALTER TABLE manent.deployments DROP COLUMN IF EXISTS cancelled_by, DROP COLUMN IF EXISTS cancelled_from;
