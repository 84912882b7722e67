DROP TABLE manent.callback_deliveries;
