-- One row per worker process identity (server.executor_id): its heartbeat,
-- and the fence another worker sets when it takes over its deploys, so a
-- paused process that wakes up stops instead of running beside its successor.
CREATE TABLE manent.executors (
    executor_id text PRIMARY KEY,
    hostname    text NOT NULL DEFAULT '',
    pid         integer NOT NULL DEFAULT 0,
    started_at  timestamptz NOT NULL DEFAULT now(),
    last_seen   timestamptz NOT NULL DEFAULT now(),
    fenced_at   timestamptz,
    fenced_by   text
);
