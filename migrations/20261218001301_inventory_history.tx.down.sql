DROP TABLE manent.inventory_history;
