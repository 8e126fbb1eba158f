-- +goose Up
CREATE TABLE runs (
    id                  TEXT PRIMARY KEY,
    account_id          TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id            TEXT NOT NULL,
    status              TEXT NOT NULL,
    priority            BOOLEAN NOT NULL DEFAULT FALSE,
    trigger_type        TEXT NOT NULL DEFAULT '',
    input               TEXT,
    output              TEXT,
    output_content_type TEXT,
    metadata            TEXT NOT NULL DEFAULT '{}',
    input_upload_ids    TEXT NOT NULL DEFAULT '[]',
    replay_of_run_id    TEXT,
    parent_run_id       TEXT,
    call_chain          TEXT NOT NULL DEFAULT '[]',
    credits             BIGINT NOT NULL DEFAULT 0, -- micro-credits
    error_count         INTEGER NOT NULL DEFAULT 0,
    error               TEXT,
    hitl_wait_ms        BIGINT NOT NULL DEFAULT 0,
    wait_ms             BIGINT NOT NULL DEFAULT 0,
    cancel_requested    BOOLEAN NOT NULL DEFAULT FALSE,
    created_at          DATETIME NOT NULL,
    started_at          DATETIME,
    ended_at            DATETIME,
    updated_at          DATETIME NOT NULL
);
CREATE INDEX runs_agent ON runs (account_id, agent_id, id);
CREATE INDEX runs_status ON runs (account_id, status);

-- One row per attempt of the whole run (a job retried after a crash is a new attempt).
CREATE TABLE run_attempts (
    run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    attempt    INTEGER NOT NULL,
    status     TEXT NOT NULL,
    started_at DATETIME NOT NULL,
    ended_at   DATETIME,
    error      TEXT,
    PRIMARY KEY (run_id, attempt)
);

-- One row per attempt of a step. A retry supersedes the completed rows of
-- the subtree it re-runs; a resumed run skips keys with a completed,
-- unsuperseded row.
CREATE TABLE run_steps (
    id           TEXT PRIMARY KEY,
    run_id       TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    account_id   TEXT NOT NULL,
    step_key     TEXT NOT NULL,
    step_id      TEXT NOT NULL,
    step_type    TEXT NOT NULL,
    attempt      INTEGER NOT NULL,
    status       TEXT NOT NULL,
    input        TEXT,
    output       TEXT,
    content_type TEXT,
    started_at   DATETIME NOT NULL,
    ended_at     DATETIME,
    credits      BIGINT NOT NULL DEFAULT 0,
    tool_calls   TEXT NOT NULL DEFAULT '[]',
    error        TEXT,
    stopped      BOOLEAN NOT NULL DEFAULT FALSE,
    final        BOOLEAN NOT NULL DEFAULT FALSE,
    superseded   BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX run_steps_run ON run_steps (run_id, id);

-- Files a run's steps emitted, downloadable by URL-safe base64 of storage_key.
CREATE TABLE run_attachments (
    storage_key  TEXT PRIMARY KEY,
    run_id       TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    account_id   TEXT NOT NULL,
    step_id      TEXT,
    name         TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size         BIGINT NOT NULL DEFAULT 0,
    created_at   DATETIME NOT NULL
);
CREATE INDEX run_attachments_run ON run_attachments (run_id);

-- Decisions asked of people by human_in_the_loop steps.
CREATE TABLE run_reviews (
    run_id       TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step_key     TEXT NOT NULL,
    account_id   TEXT NOT NULL,
    instructions TEXT NOT NULL,
    content      TEXT NOT NULL,
    requested_at DATETIME NOT NULL,
    deadline     DATETIME NOT NULL,
    on_timeout   TEXT NOT NULL,
    decided_at   DATETIME,
    approved     BOOLEAN,
    edited       TEXT,
    PRIMARY KEY (run_id, step_key)
);

-- +goose Down
DROP TABLE run_reviews;
DROP TABLE run_attachments;
DROP TABLE run_steps;
DROP TABLE run_attempts;
DROP TABLE runs;
