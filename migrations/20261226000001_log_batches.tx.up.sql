-- The last batch of deploy log lines each log writer (one per process)
-- stored: a batch whose answer was lost (the connection cut after its
-- commit, the server restarted before it answered) is sent again, and the
-- store writes it only if its number is past the one here, in the same
-- statement as the lines, so a line is never stored twice. A row is
-- rewritten at each batch of its writer; the rows of writers that stopped
-- are removed by a writer's first batch once 30 days old.
CREATE TABLE manent.log_writers (
    writer     text        PRIMARY KEY,
    batch      bigint      NOT NULL,
    written_at timestamptz NOT NULL DEFAULT now()
);
