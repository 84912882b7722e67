-- The checked exports of a succeeded deploy (name → {format, value, public}).
ALTER TABLE manent.deployments ADD COLUMN exports jsonb NOT NULL DEFAULT '[]';
