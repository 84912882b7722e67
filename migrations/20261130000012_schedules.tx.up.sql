-- Recurring schedules (schedule.cron). generation changes at every update
-- and delete: the schedule workflow of an older generation stops.
CREATE TABLE manent.schedules (
    name            text PRIMARY KEY,
    tenant          text NOT NULL,
    application     text NOT NULL,
    environment     text NOT NULL,
    cron            text NOT NULL,
    timezone        text NOT NULL,
    requester       text NOT NULL,
    state           text NOT NULL,
    generation      integer NOT NULL DEFAULT 1,
    template        jsonb NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    last_tick       timestamptz,
    next_tick       timestamptz,
    last_deployment text NOT NULL DEFAULT ''
);
