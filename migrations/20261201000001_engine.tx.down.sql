DROP TABLE IF EXISTS manent.last_failures;
ALTER TABLE manent.deployments DROP COLUMN IF EXISTS rollback;
DELETE FROM manent.deployment_steps WHERE kind <> 'run' AND kind <> 'dry-run' OR pass <> 0 OR batch <> 0 OR target <> '';
ALTER TABLE manent.deployment_steps DROP CONSTRAINT deployment_steps_pkey;
ALTER TABLE manent.deployment_steps ADD PRIMARY KEY (deployment_id, name);
ALTER TABLE manent.deployment_steps DROP COLUMN pass, DROP COLUMN batch, DROP COLUMN target, DROP COLUMN kind, DROP COLUMN runs;
DROP TRIGGER IF EXISTS deployments_lifecycle ON manent.deployments;
DROP FUNCTION IF EXISTS manent.deployment_lifecycle();
DROP TABLE IF EXISTS manent.deployment_transitions;
