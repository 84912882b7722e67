DROP INDEX manent.signin_flows_expires_idx;
DROP INDEX manent.sessions_last_seen_idx;
