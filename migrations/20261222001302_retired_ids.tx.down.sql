CREATE OR REPLACE FUNCTION manent.dora_fact_of_step() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE manent.dora_facts SET touched = true WHERE deployment_id = NEW.deployment_id AND NOT touched;
    RETURN NULL;
END;
$$;
CREATE OR REPLACE FUNCTION manent.dora_fact_of_deployment() RETURNS trigger
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
DROP TABLE manent.retired_ids;
