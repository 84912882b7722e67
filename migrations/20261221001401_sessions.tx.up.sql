-- The web interface's sessions (docs/security.md): the browser holds an
-- opaque random ID in a cookie; only its SHA-256 is stored, so that a copy
-- of this table signs no one in. The identity and groups are those of the
-- sign-in; a token session also names the static token it was opened with,
-- so that removing or rotating the token ends it.
CREATE TABLE manent.sessions (
    id_hash      bytea       PRIMARY KEY,
    subject      text        NOT NULL,
    groups       text[]      NOT NULL DEFAULT '{}',
    method       text        NOT NULL CHECK (method IN ('oidc', 'token')),
    token_sha256 text        NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL
);
CREATE INDEX sessions_subject_idx ON manent.sessions (subject);
CREATE INDEX sessions_expires_idx ON manent.sessions (expires_at);

-- The OIDC sign-ins under way: what GET /auth/login sent the browser to the
-- provider with, taken back once (and only once) at /auth/callback. The
-- state is stored hashed, as is the binding: a random value in a cookie of
-- the browser that started the sign-in, so that a callback URL opened in
-- another browser signs no one in there.
CREATE TABLE manent.signin_flows (
    state_hash   bytea       PRIMARY KEY,
    binding_hash bytea       NOT NULL,
    nonce        text        NOT NULL,
    verifier     text        NOT NULL,
    next_path    text        NOT NULL,
    expires_at   timestamptz NOT NULL
);
