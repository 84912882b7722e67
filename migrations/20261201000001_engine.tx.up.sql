-- The engine, ready for real targets.

-- The lifecycle of a deploy, as deploy/lifecycle.go has it (a test holds the
-- two equal): from_state '' lists the states a deploy may be created in. The
-- trigger refuses any other change of state, whatever the application does.
CREATE TABLE manent.deployment_transitions (
    from_state text NOT NULL,
    to_state   text NOT NULL,
    PRIMARY KEY (from_state, to_state)
);
INSERT INTO manent.deployment_transitions (from_state, to_state) VALUES
    ('', 'SCHEDULED'),
    ('', 'DELAYED'),
    ('', 'WAITING_DEPENDENCY'),
    ('', 'AWAITING_APPROVAL'),
    ('', 'ENQUEUED'),
    ('DELAYED', 'AWAITING_APPROVAL'),
    ('DELAYED', 'ENQUEUED'),
    ('DELAYED', 'ERROR'),
    ('DELAYED', 'CANCELLED'),
    ('WAITING_DEPENDENCY', 'DELAYED'),
    ('WAITING_DEPENDENCY', 'AWAITING_APPROVAL'),
    ('WAITING_DEPENDENCY', 'ENQUEUED'),
    ('WAITING_DEPENDENCY', 'ERROR'),
    ('WAITING_DEPENDENCY', 'CANCELLED'),
    ('WAITING_DEPENDENCY', 'DEPENDENCY_FAILED'),
    ('AWAITING_APPROVAL', 'ENQUEUED'),
    ('AWAITING_APPROVAL', 'ERROR'),
    ('AWAITING_APPROVAL', 'CANCELLED'),
    ('AWAITING_APPROVAL', 'REJECTED'),
    ('AWAITING_APPROVAL', 'EXPIRED'),
    ('ENQUEUED', 'PENDING'),
    ('ENQUEUED', 'ERROR'),
    ('ENQUEUED', 'CANCELLED'),
    ('PENDING', 'SUCCESS'),
    ('PENDING', 'ERROR'),
    ('PENDING', 'CANCELLED'),
    ('PENDING', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED');

CREATE FUNCTION manent.deployment_lifecycle() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NOT EXISTS (SELECT 1 FROM manent.deployment_transitions WHERE from_state = '' AND to_state = NEW.state) THEN
            RAISE EXCEPTION 'a deploy cannot be created in state %', NEW.state
                USING ERRCODE = 'check_violation';
        END IF;
    ELSIF NEW.state IS DISTINCT FROM OLD.state THEN
        IF NOT EXISTS (SELECT 1 FROM manent.deployment_transitions WHERE from_state = OLD.state AND to_state = NEW.state) THEN
            RAISE EXCEPTION 'deploy %: % cannot move to %', OLD.id, OLD.state, NEW.state
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER deployments_lifecycle BEFORE INSERT OR UPDATE OF state ON manent.deployments
    FOR EACH ROW EXECUTE FUNCTION manent.deployment_lifecycle();

-- One record per operation of a step: its run (or dry run), the checkpoint
-- taken before it and its compensation, per pass, batch and target of a
-- rollout. runs counts the processes that started it, so a step that keeps
-- stopping its worker is told from one that lived through restarts.
ALTER TABLE manent.deployment_steps
    ADD COLUMN pass   integer NOT NULL DEFAULT 0,
    ADD COLUMN batch  integer NOT NULL DEFAULT 0,
    ADD COLUMN target text    NOT NULL DEFAULT '',
    ADD COLUMN kind   text    NOT NULL DEFAULT 'run',
    ADD COLUMN runs   integer NOT NULL DEFAULT 0,
    ADD CONSTRAINT deployment_steps_kind_check CHECK (kind IN ('run', 'dry-run', 'checkpoint', 'rollback'));
UPDATE manent.deployment_steps AS s SET kind = 'dry-run'
    FROM manent.deployments AS d WHERE d.id = s.deployment_id AND d.dry_run;
ALTER TABLE manent.deployment_steps DROP CONSTRAINT deployment_steps_pkey;
ALTER TABLE manent.deployment_steps ADD PRIMARY KEY (deployment_id, name, pass, batch, target, kind);

-- The outcome of the automatic rollback of a deploy ('' until decided).
ALTER TABLE manent.deployments ADD COLUMN rollback text NOT NULL DEFAULT ''
    CONSTRAINT deployments_rollback_check CHECK (rollback IN ('', 'completed', 'failed', 'not_needed', 'disabled', 'running'));

-- The last deploy of each environment that did not succeed, beside the
-- release in service (inventory).
CREATE TABLE manent.last_failures (
    tenant        text        NOT NULL,
    application   text        NOT NULL,
    environment   text        NOT NULL,
    deployment_id text        NOT NULL REFERENCES manent.deployments (id) ON DELETE CASCADE,
    step          text        NOT NULL DEFAULT '',
    error         text        NOT NULL DEFAULT '',
    finished_at   timestamptz NOT NULL,
    rollback      text        NOT NULL DEFAULT '',
    PRIMARY KEY (tenant, application, environment)
);
