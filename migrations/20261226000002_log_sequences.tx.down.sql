LOCK TABLE manent.deployments IN SHARE ROW EXCLUSIVE MODE;
DROP TRIGGER deployments_log_seq_shared ON manent.deployments;
DROP FUNCTION manent.log_seq_shared();
UPDATE manent.deployments AS d SET log_seq = s.seq
FROM manent.log_sequences AS s WHERE s.deployment_id = d.id AND s.seq > d.log_seq;

CREATE OR REPLACE FUNCTION manent.deployments_removed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM manent.deployment_steps WHERE deployment_id IN (SELECT id FROM removed);
    DELETE FROM manent.deployment_logs WHERE deployment_id IN (SELECT id FROM removed);
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION manent.deployments_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE manent.deployment_steps, manent.deployment_logs;
    RETURN NULL;
END;
$$;

DROP TABLE manent.log_sequences;
