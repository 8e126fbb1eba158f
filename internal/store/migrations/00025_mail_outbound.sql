-- +goose Up
-- Sending domains: an account's vanity (<slug>.<shared domain>) and custom
-- domains, each with its own DKIM key pair (the private half sealed by the
-- server's secrets key) and the result of the last DNS check.
CREATE TABLE email_domains (
    id              TEXT PRIMARY KEY,
    account_id      TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    domain          TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('vanity', 'custom')),
    delegated       BOOLEAN NOT NULL,
    status          TEXT NOT NULL, -- pending, verified, failed
    is_primary      BOOLEAN NOT NULL,
    regressing      BOOLEAN NOT NULL,
    dkim_selector   TEXT NOT NULL,
    dkim_public     TEXT NOT NULL, -- base64 SubjectPublicKeyInfo, as published
    dkim_private    TEXT NOT NULL, -- sealed PKCS#8
    dkim_key_id     TEXT NOT NULL,
    checks          TEXT NOT NULL, -- JSON: record key -> {ok, detail}
    error_message   TEXT,
    verified_at     DATETIME,
    last_checked_at DATETIME,
    created_at      DATETIME NOT NULL
);
CREATE UNIQUE INDEX email_domains_account_kind ON email_domains (account_id, kind);
CREATE UNIQUE INDEX email_domains_account_domain ON email_domains (account_id, domain);
-- A vanity name is first come, first served; a custom domain may be
-- claimed by several accounts but verified (proved by its DKIM record) by one.
CREATE UNIQUE INDEX email_domains_vanity ON email_domains (domain) WHERE kind = 'vanity';
CREATE UNIQUE INDEX email_domains_verified ON email_domains (domain) WHERE status = 'verified';
CREATE UNIQUE INDEX email_domains_primary ON email_domains (account_id) WHERE is_primary;
CREATE INDEX email_domains_checked ON email_domains (last_checked_at);

-- Recipients who opted out of an account's agent mail: of one agent, or of
-- all of them (agent_id NULL).
CREATE TABLE mail_optouts (
    id              TEXT PRIMARY KEY,
    account_id      TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id        TEXT,
    scope_key       TEXT NOT NULL, -- agent_id, or '*' for the whole account
    recipient_email TEXT NOT NULL,
    reason          TEXT,
    comment         TEXT,
    created_at      DATETIME NOT NULL
);
CREATE UNIQUE INDEX mail_optouts_unique ON mail_optouts (account_id, recipient_email, scope_key);
CREATE INDEX mail_optouts_created ON mail_optouts (account_id, created_at);

-- Outbound mail: a message, and one signed copy (delivery) per envelope
-- recipient, each retried by its own job until sent or failed for good.
CREATE TABLE mail_messages (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id    TEXT,
    run_id      TEXT,
    step_key    TEXT,
    mail_from   TEXT NOT NULL,
    subject     TEXT NOT NULL,
    created_at  DATETIME NOT NULL
);
-- A step that runs again after a crash finds its message instead of sending twice.
CREATE UNIQUE INDEX mail_messages_step ON mail_messages (run_id, step_key) WHERE run_id IS NOT NULL;

CREATE TABLE mail_deliveries (
    id           TEXT PRIMARY KEY,
    message_id   TEXT NOT NULL REFERENCES mail_messages (id) ON DELETE CASCADE,
    account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    recipient    TEXT NOT NULL,
    raw          TEXT NOT NULL, -- each copy carries its recipient's unsubscribe link and signature
    status       TEXT NOT NULL, -- queued, sent, bounced, failed
    attempts     INTEGER NOT NULL,
    smtp_code    INTEGER,
    last_error   TEXT,
    updated_at   DATETIME NOT NULL,
    delivered_at DATETIME
);
CREATE INDEX mail_deliveries_message ON mail_deliveries (message_id);
CREATE INDEX mail_deliveries_account ON mail_deliveries (account_id, status);

-- DMARC aggregate reports received at a domain's rua address, and their rows.
CREATE TABLE dmarc_reports (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    domain_id    TEXT NOT NULL REFERENCES email_domains (id) ON DELETE CASCADE,
    org_name     TEXT NOT NULL,
    report_id    TEXT NOT NULL,
    begins_at    DATETIME NOT NULL,
    ends_at      DATETIME NOT NULL,
    received_at  DATETIME NOT NULL
);
CREATE UNIQUE INDEX dmarc_reports_unique ON dmarc_reports (domain_id, org_name, report_id);
CREATE INDEX dmarc_reports_window ON dmarc_reports (account_id, domain_id, ends_at);

CREATE TABLE dmarc_records (
    report_id   TEXT NOT NULL REFERENCES dmarc_reports (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    source_ip   TEXT NOT NULL,
    count       INTEGER NOT NULL,
    disposition TEXT NOT NULL,
    dkim_pass   BOOLEAN NOT NULL,
    spf_pass    BOOLEAN NOT NULL,
    header_from TEXT NOT NULL,
    PRIMARY KEY (report_id, seq)
);

-- +goose Down
DROP TABLE dmarc_records;
DROP TABLE dmarc_reports;
DROP TABLE mail_deliveries;
DROP TABLE mail_messages;
DROP TABLE mail_optouts;
DROP TABLE email_domains;
