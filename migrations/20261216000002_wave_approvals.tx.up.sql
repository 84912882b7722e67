-- Answers to the approval a rollout asks before a wave: kept apart from the
-- deploy's own by the wave's pass (0 for the deploy's), one answer per
-- identity and wave.
ALTER TABLE manent.approvals ADD COLUMN pass integer NOT NULL DEFAULT 0 CHECK (pass >= 0);
ALTER TABLE manent.approvals DROP CONSTRAINT approvals_pkey;
ALTER TABLE manent.approvals ADD PRIMARY KEY (deployment_id, pass, identity);
