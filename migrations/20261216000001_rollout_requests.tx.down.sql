ALTER TABLE manent.deployments
    DROP COLUMN rollout_request,
    DROP COLUMN rollout_request_by,
    DROP COLUMN rollout_request_reason,
    DROP COLUMN rollout_request_at;
