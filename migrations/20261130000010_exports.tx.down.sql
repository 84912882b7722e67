ALTER TABLE manent.deployments DROP COLUMN IF EXISTS exports;
