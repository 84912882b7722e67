-- The read model of deploys, their steps and logs, the inventory and the
-- audit log. DBOS keeps its own schema (dbos); nothing here refers to it.
CREATE SCHEMA IF NOT EXISTS manent;

CREATE TABLE manent.deployments (
    id               text        PRIMARY KEY,
    tenant           text        NOT NULL DEFAULT '',
    application      text        NOT NULL,
    environment      text        NOT NULL,
    state            text        NOT NULL,
    requester        text        NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    started_at       timestamptz,
    finished_at      timestamptz,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    dry_run          boolean     NOT NULL DEFAULT false,
    release          text,
    artifact         jsonb       NOT NULL DEFAULT '{}',
    sha256           text        NOT NULL DEFAULT '',
    descriptor       jsonb       NOT NULL DEFAULT '{}',
    effective        jsonb       NOT NULL DEFAULT '{}',
    plan             jsonb       NOT NULL DEFAULT '{}',
    decision         jsonb       NOT NULL DEFAULT '{}',
    current_step     text        NOT NULL DEFAULT '',
    error            text        NOT NULL DEFAULT '',
    cancel_requested boolean     NOT NULL DEFAULT false,
    -- The last sequence number given to a log line: taking the next ones
    -- under the row lock keeps each deploy's log gap-free and ordered.
    log_seq          bigint      NOT NULL DEFAULT 0,
    CONSTRAINT deployments_state_check CHECK (state IN (
        'SCHEDULED', 'DELAYED', 'WAITING_DEPENDENCY', 'AWAITING_APPROVAL', 'ENQUEUED', 'PENDING',
        'SUCCESS', 'ERROR', 'CANCELLED', 'REJECTED', 'EXPIRED', 'DEPENDENCY_FAILED',
        'MAX_RECOVERY_ATTEMPTS_EXCEEDED'))
);

-- Lists are newest first with (created_at, id) as the keyset; each filter has
-- an index that ends with that order.
CREATE INDEX deployments_created_idx ON manent.deployments (created_at DESC, id DESC);
CREATE INDEX deployments_state_idx ON manent.deployments (state, created_at DESC, id DESC);
CREATE INDEX deployments_target_idx ON manent.deployments (tenant, application, environment, created_at DESC, id DESC);
CREATE INDEX deployments_requester_idx ON manent.deployments (requester, created_at DESC, id DESC);
-- What runs or waits now (activity, recovery) is a small part of the table.
CREATE INDEX deployments_active_idx ON manent.deployments (created_at DESC, id DESC)
    WHERE state IN ('SCHEDULED', 'DELAYED', 'WAITING_DEPENDENCY', 'AWAITING_APPROVAL', 'ENQUEUED', 'PENDING');

CREATE TABLE manent.deployment_steps (
    deployment_id text        NOT NULL REFERENCES manent.deployments (id) ON DELETE CASCADE,
    name          text        NOT NULL,
    position      integer     NOT NULL,
    type          text        NOT NULL DEFAULT 'standard',
    state         text        NOT NULL,
    attempts      integer     NOT NULL DEFAULT 0,
    started_at    timestamptz,
    finished_at   timestamptz,
    output        jsonb       NOT NULL DEFAULT '{}',
    error         text        NOT NULL DEFAULT '',
    PRIMARY KEY (deployment_id, name),
    CONSTRAINT deployment_steps_state_check CHECK (state IN (
        'PENDING', 'RUNNING', 'SUCCESS', 'ERROR', 'SKIPPED', 'CANCELLED'))
);

CREATE TABLE manent.deployment_logs (
    deployment_id text        NOT NULL REFERENCES manent.deployments (id) ON DELETE CASCADE,
    seq           bigint      NOT NULL,
    time          timestamptz NOT NULL DEFAULT now(),
    step          text        NOT NULL DEFAULT '',
    level         text        NOT NULL DEFAULT 'info',
    message       text        NOT NULL,
    PRIMARY KEY (deployment_id, seq)
);

-- One current release per tenant, application and environment.
CREATE TABLE manent.inventory (
    tenant        text        NOT NULL,
    application   text        NOT NULL,
    environment   text        NOT NULL,
    deployment_id text        NOT NULL REFERENCES manent.deployments (id),
    artifact      jsonb       NOT NULL DEFAULT '{}',
    sha256        text        NOT NULL DEFAULT '',
    deployed_at   timestamptz NOT NULL,
    deployed_by   text        NOT NULL DEFAULT '',
    PRIMARY KEY (tenant, application, environment)
);

CREATE TABLE manent.audit (
    id      bigserial   PRIMARY KEY,
    time    timestamptz NOT NULL DEFAULT now(),
    actor   text        NOT NULL,
    action  text        NOT NULL,
    target  text        NOT NULL DEFAULT '',
    details jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_time_idx ON manent.audit (time DESC, id DESC);
CREATE INDEX audit_target_idx ON manent.audit (target, id);

-- The audit log is append-only: the database itself refuses to change or
-- remove an entry, whatever the application does.
CREATE FUNCTION manent.audit_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'manent.audit is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$;
CREATE TRIGGER audit_no_update_delete BEFORE UPDATE OR DELETE ON manent.audit
    FOR EACH ROW EXECUTE FUNCTION manent.audit_append_only();
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON manent.audit
    FOR EACH STATEMENT EXECUTE FUNCTION manent.audit_append_only();
