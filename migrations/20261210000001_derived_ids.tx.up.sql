-- What a deploy was created for, beside release: the deploy a rollback
-- deploy undoes and the recurring schedule whose tick started it. A deploy
-- under an ID manent derives (a rollback of a release, a tick) is taken as
-- that deploy only when it records that origin; another deploy that took
-- the ID first is an error its owner sees.
ALTER TABLE manent.deployments
    ADD COLUMN rollback_of text NOT NULL DEFAULT '',
    ADD COLUMN schedule    text NOT NULL DEFAULT '';

-- The deploys created before: a rollback is known by its audit entry, the
-- rollback of a release also by the release that recorded it (only a
-- deploy of the release carries the release); a tick by its schedule.
UPDATE manent.deployments AS d SET rollback_of = a.details->>'from'
    FROM manent.audit AS a
    WHERE a.action = 'deployment.rollback' AND a.target = d.id AND COALESCE(a.details->>'from', '') <> '';
UPDATE manent.deployments AS d SET rollback_of = m.deployment_id
    FROM manent.release_deploys AS m
    WHERE m.rollback_deployment_id = d.id AND d.release = m.release_id AND d.rollback_of = '';
UPDATE manent.deployments AS d SET schedule = s.name
    FROM manent.schedules AS s
    WHERE s.last_deployment = d.id AND d.id LIKE s.name || '@%' AND d.requester = s.requester
        AND d.tenant = s.tenant AND d.application = s.application AND d.environment = s.environment
        AND d.release IS NULL;

-- Why the last tick of a schedule started no deploy ('' when it started one).
ALTER TABLE manent.schedules ADD COLUMN last_error text NOT NULL DEFAULT '';
