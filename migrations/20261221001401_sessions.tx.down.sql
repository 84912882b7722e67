DROP TABLE manent.signin_flows;
DROP TABLE manent.sessions;
