DROP TABLE manent.log_writers;
