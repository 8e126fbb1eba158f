-- +goose Up
-- Default alert configurations created for an account (credits alerts for
-- active accounts, the inbound-pause alert when the breaker first arms).
-- A row means the default was offered once: a person who deletes it does
-- not get it back on the next sweep.
CREATE TABLE alert_default_configs (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    alert_type TEXT NOT NULL,
    created_at DATETIME NOT NULL,
    PRIMARY KEY (account_id, alert_type)
);

-- +goose Down
DROP TABLE alert_default_configs;
