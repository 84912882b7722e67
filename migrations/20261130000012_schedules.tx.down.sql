DROP TABLE IF EXISTS manent.schedules;
