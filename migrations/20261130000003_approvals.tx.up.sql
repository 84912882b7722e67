-- Answers to deploys awaiting approval: one per identity and deploy, so an
-- identity can never count twice (the invariant lives here, not in Go).
CREATE TABLE manent.approvals (
    deployment_id text NOT NULL REFERENCES manent.deployments (id) ON DELETE CASCADE,
    identity      text NOT NULL,
    approved      boolean NOT NULL,
    comment       text NOT NULL DEFAULT '',
    time          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (deployment_id, identity)
);

-- When the wait for approvals ends (EXPIRED).
ALTER TABLE manent.deployments ADD COLUMN approval_expires_at timestamptz;
