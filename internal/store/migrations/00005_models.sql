-- +goose Up
-- Model lifecycle alerts: one row per alert raised for an account (and,
-- usually, one of its agents). dedupe_key is the alert's substance (see
-- lifecycle.Alert.Key) prefixed with the agent id, so a daily sweep never
-- raises the same alert twice.
CREATE TABLE model_alerts (
    id                   TEXT PRIMARY KEY,
    account_id           TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id             TEXT,
    prompt_model_id      TEXT NOT NULL,
    model_name           TEXT NOT NULL,
    alert_type           TEXT NOT NULL,
    message              TEXT NOT NULL,
    successor_model_id   TEXT,
    successor_model_name TEXT,
    dedupe_key           TEXT NOT NULL,
    read_at              DATETIME,
    created_at           DATETIME NOT NULL
);
CREATE UNIQUE INDEX model_alerts_dedupe ON model_alerts (account_id, dedupe_key);
CREATE INDEX model_alerts_account ON model_alerts (account_id, created_at);

-- Automatic model changes of agents' prompt steps, kept so that failures
-- after an upgrade can roll it back and a rolled-back model is not chosen
-- again.
CREATE TABLE model_upgrades (
    id               TEXT PRIMARY KEY,
    account_id       TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id         TEXT NOT NULL,
    from_model       TEXT NOT NULL,
    to_model         TEXT NOT NULL,
    step_ids         TEXT NOT NULL DEFAULT '[]',
    reason           TEXT NOT NULL DEFAULT '',
    upgraded_at      DATETIME NOT NULL,
    rolled_back_at   DATETIME,
    rollback_trigger TEXT
);
CREATE INDEX model_upgrades_agent ON model_upgrades (account_id, agent_id, upgraded_at);

-- Failure signals other areas report about an agent (evaluation failed,
-- governance flagged or blocked an output); failed runs are read from runs.
CREATE TABLE model_signals (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id    TEXT NOT NULL,
    signal      TEXT NOT NULL,
    occurred_at DATETIME NOT NULL
);
CREATE INDEX model_signals_agent ON model_signals (account_id, agent_id, occurred_at);

-- Model playground experiments. result_data holds each model's output and
-- scores as JSON; deleted_at hides an experiment from the API while its
-- row (and the usage billed to it) stays for audit.
CREATE TABLE playground_experiments (
    id                    TEXT PRIMARY KEY,
    account_id            TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_by            TEXT,
    status                TEXT NOT NULL,
    prompt                TEXT NOT NULL,
    system_prompt         TEXT NOT NULL DEFAULT '',
    model_ids             TEXT NOT NULL DEFAULT '[]',
    evaluation_mode       TEXT NOT NULL,
    evaluation_complexity TEXT NOT NULL,
    evaluator_model_id    TEXT,
    include_step_output   BOOLEAN NOT NULL DEFAULT FALSE,
    selected_step_output  TEXT,
    json_template         TEXT,
    progress_current      INTEGER,
    progress_total        INTEGER,
    progress_message      TEXT,
    result_data           TEXT,
    error_message         TEXT,
    cancel_requested      BOOLEAN NOT NULL DEFAULT FALSE,
    created_at            DATETIME NOT NULL,
    started_at            DATETIME,
    completed_at          DATETIME,
    updated_at            DATETIME NOT NULL,
    deleted_at            DATETIME
);
CREATE INDEX playground_experiments_account ON playground_experiments (account_id, created_at);

-- +goose Down
DROP TABLE playground_experiments;
DROP TABLE model_signals;
DROP TABLE model_upgrades;
DROP TABLE model_alerts;
