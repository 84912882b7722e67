-- Composite releases (kind: Release): the release and its deploys. A deploy
-- of a release is a normal deploy (manent.deployments.release names the
-- release); release_deploys keeps what exists before and without it: the
-- member's name, resource and dependencies, why the release did not create
-- it, and its rollback.
CREATE TABLE manent.releases (
    id          text PRIMARY KEY,
    requester   text NOT NULL,
    on_failure  text NOT NULL CHECK (on_failure IN ('stop', 'continue', 'rollback')),
    state       text NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'SUCCESS', 'ERROR', 'CANCELLED')),
    descriptor  jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    error       text NOT NULL DEFAULT ''
);
CREATE INDEX releases_created_idx ON manent.releases (created_at DESC, id DESC);

CREATE TABLE manent.release_deploys (
    release_id             text NOT NULL REFERENCES manent.releases (id) ON DELETE CASCADE,
    name                   text NOT NULL,
    position               integer NOT NULL,
    deployment_id          text NOT NULL,
    tenant                 text NOT NULL,
    application            text NOT NULL,
    environment            text NOT NULL,
    after                  jsonb NOT NULL DEFAULT '[]',
    -- Set only for a deploy the release did not create (ERROR, CANCELLED).
    state                  text NOT NULL DEFAULT '',
    error                  text NOT NULL DEFAULT '',
    rollback_deployment_id text NOT NULL DEFAULT '',
    rollback_state         text NOT NULL DEFAULT '',
    rollback_error         text NOT NULL DEFAULT '',
    PRIMARY KEY (release_id, name)
);
-- A deploy belongs to one release at most.
CREATE UNIQUE INDEX release_deploys_deployment_idx ON manent.release_deploys (deployment_id);
CREATE INDEX deployments_release_idx ON manent.deployments (release) WHERE release IS NOT NULL;
