UPDATE manent.schedules SET state = 'ACTIVE' WHERE state = 'SCHEDULED';
