-- What the DORA metrics read of each finished deploy (dry runs left out),
-- kept apart from the deploy so that the retention of deploys leaves the
-- metrics as they were: no foreign key, a removed deploy leaves its fact.
-- Facts go only with retention.dora (docs/dora.md).
CREATE TABLE manent.dora_facts (
    deployment_id text        PRIMARY KEY,
    tenant        text        NOT NULL,
    application   text        NOT NULL,
    environment   text        NOT NULL,
    state         text        NOT NULL,
    created_at    timestamptz NOT NULL,
    started_at    timestamptz,
    finished_at   timestamptz NOT NULL,
    -- the descriptor's commit.time or artifact.createdAt as written: read
    -- by manent, which ignores a time it cannot parse
    change_at     text,
    -- a step of the run or of its rollback acted on a target
    touched       boolean     NOT NULL,
    remediation   boolean     NOT NULL,
    rollback      text        NOT NULL DEFAULT '',
    rollback_of   text        NOT NULL DEFAULT ''
);
CREATE INDEX dora_facts_finished_idx ON manent.dora_facts (finished_at, deployment_id);
CREATE INDEX dora_facts_scope_idx ON manent.dora_facts (tenant, application, environment, finished_at);

-- touches_target tells whether a step acted on a target: a step of the run
-- or of its rollback, other than those that run before any target is acted
-- on (deploy.StepConfig, StepSecrets, StepArtifacts, StepQA).
CREATE FUNCTION manent.dora_touches_target(kind text, name text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT kind IN ('run', 'rollback') AND name NOT IN ('config', 'secrets', 'artifacts', 'qa')
$$;

-- The fact is written by the database in the transaction that finishes the
-- deploy, whichever of manent's paths finishes it (its run, a wait that
-- ended it, a cancel, an executor lost), and rewritten when a finished
-- deploy changes again (its rollback's outcome).
CREATE FUNCTION manent.dora_fact_of_deployment() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO manent.dora_facts AS f (deployment_id, tenant, application, environment, state, created_at,
        started_at, finished_at, change_at, touched, remediation, rollback, rollback_of)
    VALUES (NEW.id, NEW.tenant, NEW.application, NEW.environment, NEW.state, NEW.created_at,
        NEW.started_at, NEW.finished_at,
        COALESCE(NEW.descriptor->'commit'->>'time', NEW.descriptor->'artifact'->>'createdAt'),
        EXISTS (SELECT 1 FROM manent.deployment_steps AS s
            WHERE s.deployment_id = NEW.id AND s.started_at IS NOT NULL
                AND manent.dora_touches_target(s.kind, s.name)),
        COALESCE(NEW.descriptor->>'remediation' = 'true', false),
        NEW.rollback, NEW.rollback_of)
    ON CONFLICT (deployment_id) DO UPDATE SET state = EXCLUDED.state, created_at = EXCLUDED.created_at,
        started_at = EXCLUDED.started_at,
        finished_at = EXCLUDED.finished_at, change_at = EXCLUDED.change_at, touched = EXCLUDED.touched,
        remediation = EXCLUDED.remediation, rollback = EXCLUDED.rollback, rollback_of = EXCLUDED.rollback_of;
    RETURN NULL;
END;
$$;
CREATE TRIGGER deployments_dora_fact AFTER INSERT OR UPDATE ON manent.deployments
    FOR EACH ROW WHEN (NEW.finished_at IS NOT NULL AND NOT NEW.dry_run)
    EXECUTE FUNCTION manent.dora_fact_of_deployment();

-- A step that starts after its deploy finished (the rollback of a deploy
-- already ended) marks the fact as having touched a target.
CREATE FUNCTION manent.dora_fact_of_step() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE manent.dora_facts SET touched = true WHERE deployment_id = NEW.deployment_id AND NOT touched;
    RETURN NULL;
END;
$$;
CREATE TRIGGER deployment_steps_dora_fact AFTER INSERT OR UPDATE OF started_at ON manent.deployment_steps
    FOR EACH ROW WHEN (NEW.started_at IS NOT NULL AND manent.dora_touches_target(NEW.kind, NEW.name))
    EXECUTE FUNCTION manent.dora_fact_of_step();

-- The facts of the deploys finished before this migration.
INSERT INTO manent.dora_facts (deployment_id, tenant, application, environment, state, created_at,
    started_at, finished_at, change_at, touched, remediation, rollback, rollback_of)
SELECT d.id, d.tenant, d.application, d.environment, d.state, d.created_at, d.started_at, d.finished_at,
    COALESCE(d.descriptor->'commit'->>'time', d.descriptor->'artifact'->>'createdAt'),
    EXISTS (SELECT 1 FROM manent.deployment_steps AS s
        WHERE s.deployment_id = d.id AND s.started_at IS NOT NULL AND manent.dora_touches_target(s.kind, s.name)),
    COALESCE(d.descriptor->>'remediation' = 'true', false),
    d.rollback, d.rollback_of
FROM manent.deployments AS d
WHERE NOT d.dry_run AND d.finished_at IS NOT NULL;
