DROP TRIGGER deployments_truncated ON manent.deployments;
DROP FUNCTION manent.deployments_truncated();
DROP TRIGGER deployments_removed ON manent.deployments;
DROP FUNCTION manent.deployments_removed();
DELETE FROM manent.deployment_steps AS s WHERE NOT EXISTS (SELECT 1 FROM manent.deployments AS d WHERE d.id = s.deployment_id);
DELETE FROM manent.deployment_logs AS l WHERE NOT EXISTS (SELECT 1 FROM manent.deployments AS d WHERE d.id = l.deployment_id);
ALTER TABLE manent.deployment_steps ADD CONSTRAINT deployment_steps_deployment_id_fkey
    FOREIGN KEY (deployment_id) REFERENCES manent.deployments(id) ON DELETE CASCADE;
ALTER TABLE manent.deployment_logs ADD CONSTRAINT deployment_logs_deployment_id_fkey
    FOREIGN KEY (deployment_id) REFERENCES manent.deployments(id) ON DELETE CASCADE;

DROP TRIGGER deployment_steps_dora_fact ON manent.deployment_steps;
CREATE TRIGGER deployment_steps_dora_fact AFTER INSERT OR UPDATE OF started_at ON manent.deployment_steps
    FOR EACH ROW WHEN (NEW.started_at IS NOT NULL AND manent.dora_touches_target(NEW.kind, NEW.name))
    EXECUTE FUNCTION manent.dora_fact_of_step();

CREATE OR REPLACE FUNCTION manent.audit_resources_of(action text, target text) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT CASE
        WHEN action LIKE 'release.%' THEN (SELECT jsonb_agg(jsonb_build_object('tenant', m.tenant,
            'application', m.application, 'environment', m.environment) ORDER BY m.position)
            FROM manent.release_deploys AS m WHERE m.release_id = target)
        WHEN action LIKE 'schedule.%' THEN (SELECT jsonb_agg(jsonb_build_object('tenant', s.tenant,
            'application', s.application, 'environment', s.environment))
            FROM manent.schedules AS s WHERE s.name = target)
        ELSE (SELECT jsonb_agg(jsonb_build_object('tenant', d.tenant,
            'application', d.application, 'environment', d.environment))
            FROM manent.deployments AS d WHERE d.id = target)
    END
$$;
