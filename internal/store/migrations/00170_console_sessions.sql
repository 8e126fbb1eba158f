-- +goose Up
-- The web console's sessions (an extension). The browser holds only the
-- session's random token in an HttpOnly cookie; the table holds its hash,
-- so any replica serves the session and a database leak signs no one in.
-- A session signed in with an API key keeps that key's hash, never the
-- key, and acts exactly as the key (a revoked key ends the session); one
-- signed in with a one-time link or single sign-on acts as its user.
CREATE TABLE console_sessions (
    id           TEXT PRIMARY KEY,
    token_hash   TEXT NOT NULL UNIQUE,
    user_id      TEXT REFERENCES users (id) ON DELETE CASCADE,
    key_hash     TEXT,
    account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at   DATETIME NOT NULL,
    last_seen_at DATETIME NOT NULL,
    expires_at   DATETIME NOT NULL,
    revoked_at   DATETIME
);
CREATE INDEX console_sessions_user ON console_sessions (user_id);
CREATE INDEX console_sessions_key ON console_sessions (key_hash);

-- One-time sign-in links: `agentry admin signin-link` and the first start
-- print them. Single use, short-lived; only the hash is kept.
CREATE TABLE console_signin_links (
    id         TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at DATETIME NOT NULL,
    expires_at DATETIME NOT NULL,
    used_at    DATETIME
);

-- +goose Down
DROP TABLE console_signin_links;
DROP TABLE console_sessions;
