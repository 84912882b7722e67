ALTER TABLE manent.deployments DROP COLUMN requester_groups;
