-- Who cancelled a deploy (or asked it to stop at its next step), and the
-- state the cancel found it in: the first cancel request's, shown in its
-- status (a deploy cancelled while it waited for its dependencies shows
-- that wait cancelled) and named in its error.
ALTER TABLE manent.deployments
    ADD COLUMN cancelled_by text NOT NULL DEFAULT '',
    ADD COLUMN cancelled_from text NOT NULL DEFAULT '';
