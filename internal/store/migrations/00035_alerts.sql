-- +goose Up
-- Alerts raised from alert_configs (created with the agents area in
-- 00004), their lifecycle, comments, subscribers, the per-organization
-- delivery preferences of users, and the log of deliveries.

-- Where a config's alerts are also sent (an extension): a URL and the name
-- of the account secret whose value signs each request. checked_at is the
-- detectors' watermark: runs that ended before it were looked at.
ALTER TABLE alert_configs ADD COLUMN webhook_url TEXT;
ALTER TABLE alert_configs ADD COLUMN webhook_secret_name TEXT;
ALTER TABLE alert_configs ADD COLUMN checked_at DATETIME;
CREATE INDEX alert_configs_type ON alert_configs (alert_type, account_id) WHERE enabled;

CREATE TABLE alerts (
    id                        TEXT PRIMARY KEY,
    account_id                TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    alert_config_id           TEXT REFERENCES alert_configs (id) ON DELETE SET NULL,
    alert_type                TEXT NOT NULL,
    title                     TEXT NOT NULL,
    description               TEXT,
    status                    TEXT NOT NULL,
    agent_id                  TEXT,
    agent_run_id              TEXT,
    source_connection_id      TEXT,
    source_connection_pull_id TEXT,
    details                   TEXT NOT NULL DEFAULT '{}',
    -- The config id while the alert is open (triggered or acknowledged),
    -- NULL after: the unique index keeps one open alert per config.
    open_config_id            TEXT,
    created_at                DATETIME NOT NULL,
    updated_at                DATETIME NOT NULL
);
CREATE UNIQUE INDEX alerts_open_config ON alerts (open_config_id);
CREATE INDEX alerts_account ON alerts (account_id, created_at);

CREATE TABLE alert_history (
    id                 TEXT PRIMARY KEY,
    alert_id           TEXT NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
    previous_status    TEXT,
    new_status         TEXT NOT NULL,
    changed_by_user_id TEXT,
    note               TEXT,
    created_at         DATETIME NOT NULL
);
CREATE INDEX alert_history_alert ON alert_history (alert_id, id);

CREATE TABLE alert_comments (
    id         TEXT PRIMARY KEY,
    alert_id   TEXT NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at DATETIME NOT NULL
);
CREATE INDEX alert_comments_alert ON alert_comments (alert_id, id);

CREATE TABLE alert_subscribers (
    id         TEXT PRIMARY KEY,
    alert_id   TEXT NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL,
    created_at DATETIME NOT NULL,
    UNIQUE (alert_id, user_id)
);

-- A user's explicit opt-out of one alert type in one organization. No row
-- means the default: subscribed.
CREATE TABLE alert_preferences (
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    alert_type      TEXT NOT NULL,
    created_at      DATETIME NOT NULL,
    PRIMARY KEY (user_id, organization_id, alert_type)
);

-- Runs already counted by a per-run detector (run_failed, slow_run) of a
-- configuration: the inline hook and the catch-up sweep both look at a
-- run, and the first to mark it counts it.
CREATE TABLE alert_run_marks (
    alert_config_id TEXT NOT NULL REFERENCES alert_configs (id) ON DELETE CASCADE,
    run_id          TEXT NOT NULL,
    created_at      DATETIME NOT NULL,
    PRIMARY KEY (alert_config_id, run_id)
);
CREATE INDEX alert_run_marks_created ON alert_run_marks (created_at);

-- Source pull outcomes reported by the knowledge area, for the
-- consecutive and rate detectors of source alerts.
CREATE TABLE alert_source_pulls (
    id                   TEXT PRIMARY KEY,
    account_id           TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    source_connection_id TEXT NOT NULL,
    failed               BOOLEAN NOT NULL,
    created_at           DATETIME NOT NULL
);
CREATE INDEX alert_source_pulls_source ON alert_source_pulls (account_id, source_connection_id, created_at);

CREATE TABLE alert_deliveries (
    id              TEXT PRIMARY KEY,
    account_id      TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    alert_id        TEXT NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
    alert_config_id TEXT,
    event           TEXT NOT NULL,
    channel         TEXT NOT NULL, -- webhook | email
    target          TEXT NOT NULL, -- the URL, or the recipient user id
    status          TEXT NOT NULL, -- pending | delivered | failed | skipped
    attempts        INTEGER NOT NULL DEFAULT 0,
    response_status INTEGER,
    error           TEXT,
    created_at      DATETIME NOT NULL,
    updated_at      DATETIME NOT NULL
);
CREATE INDEX alert_deliveries_config ON alert_deliveries (account_id, alert_config_id, created_at);
CREATE INDEX alert_deliveries_alert ON alert_deliveries (alert_id);


-- +goose Down
DROP TABLE alert_deliveries;
DROP TABLE alert_source_pulls;
DROP TABLE alert_run_marks;
DROP TABLE alert_preferences;
DROP TABLE alert_subscribers;
DROP TABLE alert_comments;
DROP TABLE alert_history;
DROP TABLE alerts;
DROP INDEX alert_configs_type;
ALTER TABLE alert_configs DROP COLUMN checked_at;
ALTER TABLE alert_configs DROP COLUMN webhook_secret_name;
ALTER TABLE alert_configs DROP COLUMN webhook_url;
