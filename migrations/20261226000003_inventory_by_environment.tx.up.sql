-- The releases in service of an application in an environment across
-- tenants (an import that names no tenant, at each submission and each
-- deploy's start) by an index, not by a scan of every tenant's inventory.
CREATE INDEX inventory_environment_idx ON manent.inventory (application, environment);
