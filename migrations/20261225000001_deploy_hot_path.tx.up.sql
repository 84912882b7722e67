-- What each operation of a deploy makes the database do, made smaller
-- (measured per deploy with auto_explain on warm connections):
--
-- The resources of an audit entry are resolved by PL/pgSQL, whose
-- statements' plans each session keeps, instead of a SQL function planned
-- anew at every call (half a millisecond per entry, two entries a deploy).
CREATE OR REPLACE FUNCTION manent.audit_resources_of(action text, target text) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
    r jsonb;
BEGIN
    IF action LIKE 'release.%' THEN
        SELECT jsonb_agg(jsonb_build_object('tenant', m.tenant, 'application', m.application,
            'environment', m.environment) ORDER BY m.position) INTO r
        FROM manent.release_deploys AS m WHERE m.release_id = target;
    ELSIF action LIKE 'schedule.%' THEN
        SELECT jsonb_agg(jsonb_build_object('tenant', s.tenant, 'application', s.application,
            'environment', s.environment)) INTO r
        FROM manent.schedules AS s WHERE s.name = target;
    ELSE
        SELECT jsonb_agg(jsonb_build_object('tenant', d.tenant, 'application', d.application,
            'environment', d.environment)) INTO r
        FROM manent.deployments AS d WHERE d.id = target;
    END IF;
    RETURN r;
END;
$$;

-- A step of the run starts before its deploy finishes, and the fact the
-- finish writes reads every step that started: only a rollback's steps can
-- start after it (the rollback of a deploy already ended) and need the
-- trigger, which ran at every start and end of every step that touches a
-- target.
DROP TRIGGER deployment_steps_dora_fact ON manent.deployment_steps;
CREATE TRIGGER deployment_steps_dora_fact AFTER INSERT OR UPDATE OF started_at ON manent.deployment_steps
    FOR EACH ROW WHEN (NEW.started_at IS NOT NULL AND NEW.kind = 'rollback' AND manent.dora_touches_target(NEW.kind, NEW.name))
    EXECUTE FUNCTION manent.dora_fact_of_step();

-- The steps and log lines of a deploy are written only by the engine, for a
-- deploy it holds (the log writer joins the deploy's row, the end of an
-- operation updates it in the same statement): the foreign key's check of
-- every row written (thirty a deploy, each a query locking the deploy's row)
-- proved nothing those statements do not. What the key did on a delete, the
-- statement trigger below does, once per DELETE.
ALTER TABLE manent.deployment_steps DROP CONSTRAINT deployment_steps_deployment_id_fkey;
ALTER TABLE manent.deployment_logs DROP CONSTRAINT deployment_logs_deployment_id_fkey;

CREATE FUNCTION manent.deployments_removed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM manent.deployment_steps WHERE deployment_id IN (SELECT id FROM removed);
    DELETE FROM manent.deployment_logs WHERE deployment_id IN (SELECT id FROM removed);
    RETURN NULL;
END;
$$;
CREATE TRIGGER deployments_removed AFTER DELETE ON manent.deployments
    REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION manent.deployments_removed();

-- TRUNCATE fires no DELETE trigger: a TRUNCATE of the deploys (CASCADE, for
-- the tables whose keys remain) empties their steps and log lines too.
CREATE FUNCTION manent.deployments_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE manent.deployment_steps, manent.deployment_logs;
    RETURN NULL;
END;
$$;
CREATE TRIGGER deployments_truncated AFTER TRUNCATE ON manent.deployments
    FOR EACH STATEMENT EXECUTE FUNCTION manent.deployments_truncated();
