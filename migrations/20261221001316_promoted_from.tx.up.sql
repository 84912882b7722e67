-- The deploy a promotion or a redeploy was made from: the new deploy says
-- where its artifact and descriptor came from.
ALTER TABLE manent.deployments ADD COLUMN promoted_from text NOT NULL DEFAULT '';
