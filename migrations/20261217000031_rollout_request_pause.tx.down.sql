ALTER TABLE manent.deployments
    DROP COLUMN rollout_request_pause;
