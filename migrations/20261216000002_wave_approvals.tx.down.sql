DELETE FROM manent.approvals WHERE pass <> 0;
ALTER TABLE manent.approvals DROP CONSTRAINT approvals_pkey;
ALTER TABLE manent.approvals DROP COLUMN pass;
ALTER TABLE manent.approvals ADD PRIMARY KEY (deployment_id, identity);
