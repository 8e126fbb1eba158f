-- +goose Up
-- Ids are UUIDv7 text in both dialects: it keeps one set of queries for
-- both, and a malformed id in a lookup is a miss rather than a type error.
CREATE TABLE accounts (
    id             TEXT PRIMARY KEY,
    kind           TEXT NOT NULL CHECK (kind IN ('personal', 'organization')),
    name           TEXT NOT NULL,
    api_version    TEXT,
    credit_balance BIGINT NOT NULL DEFAULT 0, -- micro-credits (1e-6)
    created_at     DATETIME NOT NULL,
    updated_at     DATETIME NOT NULL
);

CREATE TABLE users (
    id                  TEXT PRIMARY KEY,
    email               TEXT,
    name                TEXT NOT NULL,
    oidc_issuer         TEXT,
    oidc_subject        TEXT,
    personal_account_id TEXT NOT NULL REFERENCES accounts (id),
    created_at          DATETIME NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (email) WHERE email IS NOT NULL;
CREATE UNIQUE INDEX users_oidc ON users (oidc_issuer, oidc_subject) WHERE oidc_subject IS NOT NULL;

CREATE TABLE memberships (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    created_at DATETIME NOT NULL,
    PRIMARY KEY (account_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    user_id      TEXT REFERENCES users (id) ON DELETE SET NULL,
    name         TEXT NOT NULL,
    prefix       TEXT NOT NULL,
    key_hash     TEXT NOT NULL UNIQUE,
    role         TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    created_at   DATETIME NOT NULL,
    last_used_at DATETIME,
    revoked_at   DATETIME
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE credit_ledger (
    id            TEXT PRIMARY KEY,
    account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    delta         BIGINT NOT NULL,
    balance_after BIGINT NOT NULL,
    reason        TEXT NOT NULL,
    reference     TEXT,
    created_at    DATETIME NOT NULL
);
CREATE INDEX credit_ledger_account ON credit_ledger (account_id, created_at);

-- Diagnostic pings prove end to end that the job workers run (agentry admin jobs ping).
CREATE TABLE job_pings (
    id          TEXT PRIMARY KEY,
    note        TEXT NOT NULL,
    started_at  DATETIME,
    finished_at DATETIME,
    attempts    INTEGER NOT NULL DEFAULT 0,
    created_at  DATETIME NOT NULL
);

-- Process-wide settings and one-time claims (first-start bootstrap).
CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at DATETIME NOT NULL
);

-- +goose Down
DROP TABLE settings;
DROP TABLE job_pings;
DROP TABLE credit_ledger;
DROP TABLE api_keys;
DROP TABLE memberships;
DROP TABLE users;
DROP TABLE accounts;
