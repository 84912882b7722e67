ALTER TABLE manent.schedules DROP COLUMN IF EXISTS last_error;
ALTER TABLE manent.deployments DROP COLUMN IF EXISTS schedule, DROP COLUMN IF EXISTS rollback_of;
