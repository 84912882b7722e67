-- after: which deploy waits for which, so that a deploy that ends wakes the
-- deploys waiting on it with one indexed query.
CREATE TABLE manent.dependencies (
    deployment_id text NOT NULL REFERENCES manent.deployments (id) ON DELETE CASCADE,
    depends_on    text NOT NULL,
    PRIMARY KEY (deployment_id, depends_on)
);
CREATE INDEX dependencies_depends_on ON manent.dependencies (depends_on);

-- When the wait for the dependencies ends (afterTimeout).
ALTER TABLE manent.deployments ADD COLUMN after_expires_at timestamptz;
