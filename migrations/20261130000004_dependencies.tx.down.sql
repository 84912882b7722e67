ALTER TABLE manent.deployments DROP COLUMN IF EXISTS after_expires_at;
DROP TABLE IF EXISTS manent.dependencies;
