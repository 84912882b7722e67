-- The fact of a finished deploy is rewritten only when what it reads of the
-- deploy changes: the log's sequence (log_seq), the current step and
-- updated_at change on a finished deploy too (its last log lines), and
-- each such update cost an upsert of the fact with a scan of its steps.
DROP TRIGGER deployments_dora_fact ON manent.deployments;
CREATE TRIGGER deployments_dora_fact
    AFTER INSERT OR UPDATE OF id, tenant, application, environment, state, created_at, started_at, finished_at,
        descriptor, dry_run, rollback, rollback_of
    ON manent.deployments
    FOR EACH ROW WHEN (NEW.finished_at IS NOT NULL AND NOT NEW.dry_run)
    EXECUTE FUNCTION manent.dora_fact_of_deployment();
