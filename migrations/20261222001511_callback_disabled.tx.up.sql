-- The receivers that answered 410 Gone, per tenant: no delivery of any
-- deploy of that tenant calls them again until a replay with
-- --include-disabled (or an administrator deleting the row) enables them.
-- url is the whole URL, as in callback_deliveries.
CREATE TABLE manent.callback_disabled (
    tenant        text        NOT NULL,
    url           text        NOT NULL,
    deployment_id text        NOT NULL,
    delivery_id   text        NOT NULL,
    disabled_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, url)
);
