-- Every deploy that went in service in an environment, and when: the
-- inventory's "one before" is the entry before the current one. A deploy
-- whose activation was undone by its rollback leaves it; a removed deploy
-- takes its entry with it.
CREATE TABLE manent.inventory_history (
    deployment_id text        PRIMARY KEY REFERENCES manent.deployments (id) ON DELETE CASCADE,
    tenant        text        NOT NULL,
    application   text        NOT NULL,
    environment   text        NOT NULL,
    deployed_at   timestamptz NOT NULL
);
CREATE INDEX inventory_history_environment_idx
    ON manent.inventory_history (tenant, application, environment, deployed_at DESC, deployment_id DESC);

-- What is known of the past: the releases in service now, and the deploys
-- that succeeded (which went in service when they ended).
INSERT INTO manent.inventory_history (deployment_id, tenant, application, environment, deployed_at)
SELECT deployment_id, tenant, application, environment, deployed_at FROM manent.inventory;
INSERT INTO manent.inventory_history (deployment_id, tenant, application, environment, deployed_at)
SELECT id, tenant, application, environment, finished_at FROM manent.deployments
WHERE state = 'SUCCESS' AND NOT dry_run AND finished_at IS NOT NULL
ON CONFLICT (deployment_id) DO NOTHING;
