-- The schema stays: it holds the migration tables themselves.
DROP TABLE IF EXISTS manent.audit;
DROP FUNCTION IF EXISTS manent.audit_append_only();
DROP TABLE IF EXISTS manent.inventory;
DROP TABLE IF EXISTS manent.deployment_logs;
DROP TABLE IF EXISTS manent.deployment_steps;
DROP TABLE IF EXISTS manent.deployments;
