-- The last sequence number of each deploy's log, in a row of its own: a
-- batch of log lines numbers its lines under the locks of these rows, not
-- under the deploys' rows, which every operation of a running deploy
-- updates. A batch of many deploys' lines no longer waits for their
-- operations to commit, nor holds them up until its own commit.
-- No process of an earlier version takes a number (on log_seq, below)
-- between the copy and the trigger that shares them.
LOCK TABLE manent.deployments IN SHARE ROW EXCLUSIVE MODE;
CREATE TABLE manent.log_sequences (
    deployment_id text   PRIMARY KEY,
    seq           bigint NOT NULL
);
INSERT INTO manent.log_sequences (deployment_id, seq)
SELECT id, log_seq FROM manent.deployments WHERE log_seq > 0;

-- deployments.log_seq stays while processes of earlier versions may run
-- beside this one (a rolling upgrade): they number their lines by adding
-- to it. The trigger takes their numbers from log_sequences instead, and
-- gives the statement the one it took, so both versions share one count
-- per deploy. This version never writes log_seq: the trigger costs it
-- nothing.
CREATE FUNCTION manent.log_seq_shared() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO manent.log_sequences AS s (deployment_id, seq) VALUES (NEW.id, NEW.log_seq)
    ON CONFLICT (deployment_id) DO UPDATE SET seq = s.seq + (NEW.log_seq - OLD.log_seq)
    RETURNING s.seq INTO NEW.log_seq;
    RETURN NEW;
END;
$$;
CREATE TRIGGER deployments_log_seq_shared BEFORE UPDATE OF log_seq ON manent.deployments
    FOR EACH ROW WHEN (NEW.log_seq > OLD.log_seq)
    EXECUTE FUNCTION manent.log_seq_shared();

CREATE OR REPLACE FUNCTION manent.deployments_removed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM manent.deployment_steps WHERE deployment_id IN (SELECT id FROM removed);
    DELETE FROM manent.deployment_logs WHERE deployment_id IN (SELECT id FROM removed);
    DELETE FROM manent.log_sequences WHERE deployment_id IN (SELECT id FROM removed);
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION manent.deployments_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE manent.deployment_steps, manent.deployment_logs, manent.log_sequences;
    RETURN NULL;
END;
$$;
