DROP INDEX manent.inventory_environment_idx;
