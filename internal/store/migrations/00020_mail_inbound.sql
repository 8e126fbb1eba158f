-- +goose Up
-- Inbound mail. inbound_emails is the durable queue between the SMTP
-- listener and the job that acts on a message: a message is answered
-- 250 only once its row (with the raw message, base64) and its job have
-- committed together. raw is cleared once the message is processed.
CREATE TABLE inbound_emails (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id    TEXT NOT NULL,
    recipient   TEXT NOT NULL,
    mail_from   TEXT NOT NULL,
    helo        TEXT NOT NULL DEFAULT '',
    sender_ip   TEXT NOT NULL DEFAULT '',
    raw         TEXT NOT NULL,
    size_bytes  BIGINT NOT NULL,
    status      TEXT NOT NULL, -- queued, processed
    outcome     TEXT,          -- run, queued_run, rejected:<reason>
    run_id      TEXT,
    received_at DATETIME NOT NULL,
    processed_at DATETIME
);
CREATE INDEX inbound_emails_account ON inbound_emails (account_id, received_at);

-- The email settings of an EMAIL_RECEIVED trigger. alias is lower case and
-- unique within the account (the shared domain's alias addresses carry
-- the account id, and a custom domain belongs to one account).
CREATE TABLE email_trigger_configs (
    trigger_id            TEXT PRIMARY KEY,
    account_id            TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id              TEXT NOT NULL,
    alias                 TEXT,
    allowed_senders       TEXT, -- JSON array, NULL: any sender
    ignore_auto_generated BOOLEAN NOT NULL DEFAULT TRUE,
    require_sender_auth   BOOLEAN NOT NULL DEFAULT TRUE,
    queue_on_quota        BOOLEAN NOT NULL DEFAULT FALSE,
    updated_at            DATETIME NOT NULL
);
CREATE UNIQUE INDEX email_trigger_configs_alias ON email_trigger_configs (account_id, alias);
CREATE INDEX email_trigger_configs_agent ON email_trigger_configs (account_id, agent_id);

-- The account's blocklist of inbound senders: an address or a domain.
CREATE TABLE email_blocked_senders (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    sender_email TEXT NOT NULL, -- lower case
    match_type   TEXT NOT NULL, -- address, domain
    source       TEXT NOT NULL, -- manual, governance
    note         TEXT,
    created_at   DATETIME NOT NULL
);
CREATE UNIQUE INDEX email_blocked_senders_unique ON email_blocked_senders (account_id, match_type, sender_email);

-- Inbound mail discarded before any run, with why.
CREATE TABLE inbound_email_rejections (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id   TEXT,
    recipient  TEXT NOT NULL,
    sender     TEXT NOT NULL,
    sender_ip  TEXT,
    reason     TEXT NOT NULL,
    message_id TEXT,
    subject    TEXT,
    created_at DATETIME NOT NULL
);
CREATE INDEX inbound_email_rejections_account ON inbound_email_rejections (account_id, created_at);

-- Per-account inbound settings and the overload breaker's state.
CREATE TABLE inbound_email_state (
    account_id      TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    auto_block_mode TEXT NOT NULL DEFAULT 'disabled',
    paused          BOOLEAN NOT NULL DEFAULT FALSE,
    paused_at       DATETIME,
    updated_at      DATETIME NOT NULL
);

-- +goose Down
DROP TABLE inbound_email_state;
DROP TABLE inbound_email_rejections;
DROP TABLE email_blocked_senders;
DROP TABLE email_trigger_configs;
DROP TABLE inbound_emails;
