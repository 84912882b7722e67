-- Each audit entry records, when it is written, the resources it is about
-- (a JSON array of {tenant, application, environment}; NULL when it is
-- about none, a server-wide entry). Worked out at read time, an entry went
-- with whatever held its target's ID or name then: a deploy or schedule of
-- another tenant reusing it read the old entries, and the entries of a
-- deploy that retention removed were left about nothing.
ALTER TABLE manent.audit ADD COLUMN resources jsonb;
CREATE INDEX audit_resources_idx ON manent.audit USING gin (resources jsonb_path_ops);

-- audit_resources_of resolves a target to its resources now, by the
-- namespace of the action: a release's deploys, a schedule, else a deploy.
CREATE FUNCTION manent.audit_resources_of(action text, target text) RETURNS jsonb
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

-- Every writer (manent's code, its SQL, the retention) gets the resources
-- filled by the database in the transaction that writes the entry, when
-- its target still is what the entry is about.
CREATE FUNCTION manent.audit_fill_resources() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.resources IS NULL THEN
        NEW.resources := manent.audit_resources_of(NEW.action, NEW.target);
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER audit_resources BEFORE INSERT ON manent.audit
    FOR EACH ROW EXECUTE FUNCTION manent.audit_fill_resources();

-- The entries written before. A deploy's entry goes with the last
-- deployment.submit of its ID up to it, whose details name the deploy's
-- resource even after retention removed it, and even when another deploy
-- took the ID since; else with what holds its target now, as manent read
-- it until this migration. The append-only trigger is off only for this
-- UPDATE: ALTER TABLE locks the table until the transaction ends, so no
-- other session writes or changes an entry in between.
ALTER TABLE manent.audit DISABLE TRIGGER audit_no_update_delete;
UPDATE manent.audit AS a SET resources = COALESCE(
    CASE WHEN a.action NOT LIKE 'release.%' AND a.action NOT LIKE 'schedule.%' AND a.target <> '' THEN
        (SELECT jsonb_build_array(jsonb_build_object('tenant', s.details->>'tenant',
            'application', s.details->>'application', 'environment', s.details->>'environment'))
        FROM manent.audit AS s
        WHERE s.target = a.target AND s.action = 'deployment.submit' AND s.id <= a.id
            AND s.details ? 'tenant' AND s.details ? 'application' AND s.details ? 'environment'
        ORDER BY s.id DESC LIMIT 1)
    END,
    manent.audit_resources_of(a.action, a.target));
ALTER TABLE manent.audit ENABLE TRIGGER audit_no_update_delete;
