-- A deploy ID is used once: retention records the IDs of the deploys it
-- removes, and a new deploy under one of them is refused. Its DORA fact,
-- its audit entries and its callbacks name it for good; under a new deploy
-- of another tenant the ID would mean two deploys.
CREATE TABLE manent.retired_ids (
    id         text        PRIMARY KEY,
    retired_at timestamptz NOT NULL DEFAULT now()
);

-- The deploys removed before: known by their fact or their submission.
INSERT INTO manent.retired_ids (id)
SELECT f.deployment_id FROM manent.dora_facts AS f
    WHERE NOT EXISTS (SELECT 1 FROM manent.deployments AS d WHERE d.id = f.deployment_id)
UNION
SELECT a.target FROM manent.audit AS a
    WHERE a.action = 'deployment.submit' AND a.target <> ''
        AND NOT EXISTS (SELECT 1 FROM manent.deployments AS d WHERE d.id = a.target)
ON CONFLICT DO NOTHING;

-- A fact keeps its scope: a deploy of another scope under the ID of a
-- removed deploy (one removed before retired_ids, or by hand) never
-- rewrites it, and its steps never mark it.
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
        remediation = EXCLUDED.remediation, rollback = EXCLUDED.rollback, rollback_of = EXCLUDED.rollback_of
    WHERE f.tenant = EXCLUDED.tenant AND f.application = EXCLUDED.application
        AND f.environment = EXCLUDED.environment;
    RETURN NULL;
END;
$$;
CREATE OR REPLACE FUNCTION manent.dora_fact_of_step() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE manent.dora_facts AS f SET touched = true
        FROM manent.deployments AS d
        WHERE f.deployment_id = NEW.deployment_id AND NOT f.touched AND d.id = f.deployment_id
            AND d.tenant = f.tenant AND d.application = f.application AND d.environment = f.environment;
    RETURN NULL;
END;
$$;
