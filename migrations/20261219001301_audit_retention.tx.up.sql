-- Retention may remove expired audit entries, and only through
-- manent.audit_expire: the function runs as manent_audit_retention, the one
-- role the append-only trigger lets delete, and no one else may call it but
-- the role that owns manent's schema. The role is cluster-wide and holds no
-- login, so it is created once and left in place by the down migration.

CREATE OR REPLACE FUNCTION manent.audit_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_user = 'manent_audit_retention' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'manent.audit is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$;

-- audit_expire removes the entries older than before and returns how many
-- and the range of their IDs. It refuses a limit closer than 30 days, the
-- shortest retention manent.yml accepts, so even its caller cannot use it
-- to erase recent history.
CREATE FUNCTION manent.audit_expire(before timestamptz,
    OUT removed bigint, OUT first_id bigint, OUT last_id bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF before IS NULL OR before > now() - interval '30 days' THEN
        RAISE EXCEPTION 'audit entries are kept at least 30 days'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    WITH gone AS (DELETE FROM manent.audit WHERE time < before RETURNING id)
    SELECT count(*), min(id), max(id) INTO removed, first_id, last_id FROM gone;
END;
$$;
REVOKE ALL ON FUNCTION manent.audit_expire(timestamptz) FROM PUBLIC;
DO $$
BEGIN
    EXECUTE format('GRANT EXECUTE ON FUNCTION manent.audit_expire(timestamptz) TO %I', current_user);
END;
$$;
-- The role and the function's owner need the right to create roles and to
-- give them objects. Where manent's database user has neither (a managed
-- PostgreSQL without CREATEROLE), the migration still applies: the
-- function then runs as that user, whom the trigger refuses, so expired
-- audit entries are kept (retention says so in its audit entry) and
-- nothing else changes. An administrator can create the role and hand it
-- the function later (docs/audit.md).
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'manent_audit_retention') THEN
        CREATE ROLE manent_audit_retention NOLOGIN;
    END IF;
    GRANT USAGE ON SCHEMA manent TO manent_audit_retention;
    GRANT SELECT, DELETE ON manent.audit TO manent_audit_retention;
    ALTER FUNCTION manent.audit_expire(timestamptz) OWNER TO manent_audit_retention;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE WARNING 'audit retention is off: % (expired audit entries are kept)', SQLERRM;
END;
$$;
