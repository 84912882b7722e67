DROP FUNCTION IF EXISTS manent.audit_expire(timestamptz);
CREATE OR REPLACE FUNCTION manent.audit_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'manent.audit is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$;
REVOKE ALL ON manent.audit FROM manent_audit_retention;
REVOKE ALL ON SCHEMA manent FROM manent_audit_retention;
