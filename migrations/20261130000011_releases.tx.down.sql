DROP INDEX IF EXISTS manent.deployments_release_idx;
DROP TABLE IF EXISTS manent.release_deploys;
DROP TABLE IF EXISTS manent.releases;
