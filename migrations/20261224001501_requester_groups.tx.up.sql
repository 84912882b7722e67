-- The requester's groups at submission, with the plan as signed (in plan):
-- the row holds the whole job of a deploy, which its wait reads when it
-- lets the deploy go instead of carrying it in its workflow's input.
ALTER TABLE manent.deployments ADD COLUMN requester_groups jsonb NOT NULL DEFAULT '[]';
