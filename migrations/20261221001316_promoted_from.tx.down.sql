ALTER TABLE manent.deployments DROP COLUMN IF EXISTS promoted_from;
