-- The pause a person's resume answers (the name of its record: pause[2/1]),
-- so that a resume written for one pause never ends a later one. Empty for
-- a pause or an abort, and for a resume stored before it was named.
ALTER TABLE manent.deployments
    ADD COLUMN rollout_request_pause text NOT NULL DEFAULT '';
