-- A recurring schedule's state takes the word of the deploy lifecycle:
-- SCHEDULED (was ACTIVE), as the REST answer to its submission says.
UPDATE manent.schedules SET state = 'SCHEDULED' WHERE state = 'ACTIVE';
