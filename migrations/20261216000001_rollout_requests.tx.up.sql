-- What a person asked of a deploy's running rollout (pause, resume, abort),
-- until its workflow takes it: one request at a time, read by the workflow
-- between two batches, in a bake and in a pause.
ALTER TABLE manent.deployments
    ADD COLUMN rollout_request text NOT NULL DEFAULT ''
        CHECK (rollout_request IN ('', 'pause', 'resume', 'abort')),
    ADD COLUMN rollout_request_by text NOT NULL DEFAULT '',
    ADD COLUMN rollout_request_reason text NOT NULL DEFAULT '',
    ADD COLUMN rollout_request_at timestamptz;
