-- The purge of sessions and sign-ins past their time finds them by these
-- columns: without an index, every purge scans both tables, and GET
-- /auth/login, which anyone may call, would make each scan longer.
CREATE INDEX sessions_last_seen_idx ON manent.sessions (last_seen_at);
CREATE INDEX signin_flows_expires_idx ON manent.signin_flows (expires_at);
