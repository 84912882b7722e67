DROP TABLE IF EXISTS manent.executors;
