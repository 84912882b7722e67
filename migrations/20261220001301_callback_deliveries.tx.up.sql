-- The deliveries of the deploys' events to their callbacks: one row per
-- event and callback, written by the delivery workflow at each attempt.
-- url is the whole URL, which the worker calls; readers see it redacted.
-- The retention of deploys takes their deliveries with them.
CREATE TABLE manent.callback_deliveries (
    id              text        PRIMARY KEY,
    deployment_id   text        NOT NULL REFERENCES manent.deployments (id) ON DELETE CASCADE,
    event_id        text        NOT NULL,
    event_type      text        NOT NULL CHECK (event_type IN ('started', 'step', 'finished')),
    step            text        NOT NULL DEFAULT '',
    callback        integer     NOT NULL CHECK (callback >= 0),
    url             text        NOT NULL,
    -- body is the payload as first sent, which a replay sends again.
    body            text        NOT NULL,
    state           text        NOT NULL CHECK (state IN ('pending', 'retrying', 'delivered', 'disabled', 'dead')),
    attempts        integer     NOT NULL DEFAULT 0,
    replays         integer     NOT NULL DEFAULT 0,
    last_status     integer     NOT NULL DEFAULT 0,
    last_error      text        NOT NULL DEFAULT '',
    next_attempt_at timestamptz,
    delivered_at    timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (event_id, callback)
);
CREATE INDEX callback_deliveries_deployment_idx ON manent.callback_deliveries (deployment_id, created_at, id);
