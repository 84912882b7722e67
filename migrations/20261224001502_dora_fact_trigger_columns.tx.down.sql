DROP TRIGGER deployments_dora_fact ON manent.deployments;
CREATE TRIGGER deployments_dora_fact AFTER INSERT OR UPDATE ON manent.deployments
    FOR EACH ROW WHEN (NEW.finished_at IS NOT NULL AND NOT NEW.dry_run)
    EXECUTE FUNCTION manent.dora_fact_of_deployment();
