DROP TRIGGER audit_resources ON manent.audit;
DROP FUNCTION manent.audit_fill_resources();
DROP FUNCTION manent.audit_resources_of(text, text);
DROP INDEX manent.audit_resources_idx;
ALTER TABLE manent.audit DROP COLUMN resources;
