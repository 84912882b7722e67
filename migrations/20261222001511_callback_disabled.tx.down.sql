DROP TABLE manent.callback_disabled;
