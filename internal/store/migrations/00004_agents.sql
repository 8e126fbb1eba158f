-- +goose Up
-- Agents: the workflow definition is JSON text (the definition package owns
-- its shape); settings are columns because lists and filters read them.
-- Deleting an agent is soft (deleted_at): runs and history that name it
-- keep resolving, while every lookup of the API skips it.
CREATE TABLE agents (
    id                                 TEXT PRIMARY KEY,
    account_id                         TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name                               TEXT NOT NULL,
    description                        TEXT,
    schema_version                     TEXT NOT NULL,
    definition                         TEXT NOT NULL,
    change_id                          TEXT NOT NULL,
    definition_saved_at                DATETIME NOT NULL,
    definition_saved_by                TEXT,
    evaluation_mode                    TEXT NOT NULL,
    default_evaluation_tier            TEXT,
    max_retries                        INTEGER NOT NULL,
    retry_on_failure                   BOOLEAN NOT NULL,
    sampling_config                    TEXT,
    prompt_model_auto_upgrade_strategy TEXT NOT NULL,
    prompt_model_auto_rollback_enabled BOOLEAN NOT NULL,
    prompt_model_auto_rollback_triggers TEXT, -- JSON list; NULL means the system default
    disabled_at                        DATETIME,
    disabled_reason                    TEXT,
    disabled_by                        TEXT,
    created_by                         TEXT,
    created_at                         DATETIME NOT NULL,
    updated_at                         DATETIME NOT NULL,
    deleted_at                         DATETIME
);
CREATE INDEX agents_account ON agents (account_id, id) WHERE deleted_at IS NULL;

-- Every saved definition but the current one, newest last: PUT
-- /agents/{id}/definition and imports keep what they replace.
CREATE TABLE agent_definition_history (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL,
    agent_id       TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    change_id      TEXT NOT NULL,
    schema_version TEXT NOT NULL,
    definition     TEXT NOT NULL,
    saved_at       DATETIME NOT NULL,
    saved_by       TEXT,
    replaced_at    DATETIME NOT NULL,
    replaced_by    TEXT
);
CREATE INDEX agent_definition_history_agent ON agent_definition_history (agent_id, replaced_at);

-- Which agents each agent calls through call_agent steps, rewritten with
-- every definition save, so "who calls X" is an index lookup rather than a
-- parse of every definition of the account.
CREATE TABLE agent_calls (
    account_id TEXT NOT NULL,
    caller_id  TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    callee_id  TEXT NOT NULL,
    PRIMARY KEY (caller_id, callee_id)
);
CREATE INDEX agent_calls_callee ON agent_calls (account_id, callee_id);

-- One trigger per agent. config holds the trigger's settings as JSON
-- (name, input template, input_content_type, allow_empty_input,
-- default_input, metadata_, knowledge_base_id, and keys of newer exports).
CREATE TABLE agent_triggers (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id     TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    trigger_type TEXT NOT NULL,
    config       TEXT NOT NULL,
    created_at   DATETIME NOT NULL,
    updated_at   DATETIME NOT NULL
);
CREATE UNIQUE INDEX agent_triggers_agent ON agent_triggers (agent_id);

-- Cron schedules of schedule triggers. next_run_at is computed on save in
-- the schedule's time zone, so the scheduler only reads due rows.
CREATE TABLE trigger_schedules (
    id              TEXT PRIMARY KEY,
    account_id      TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id        TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    trigger_id      TEXT NOT NULL REFERENCES agent_triggers (id) ON DELETE CASCADE,
    cron_expression TEXT NOT NULL,
    timezone        TEXT NOT NULL,
    enabled         BOOLEAN NOT NULL,
    extra           TEXT, -- other keys of an imported schedule, written back on export
    next_run_at     DATETIME,
    created_at      DATETIME NOT NULL
);
CREATE INDEX trigger_schedules_trigger ON trigger_schedules (trigger_id);
CREATE INDEX trigger_schedules_due ON trigger_schedules (next_run_at) WHERE enabled;

-- Alert configurations (AlertConfigResponse). Agent alerts name their
-- agent; source alerts their source connection.
CREATE TABLE alert_configs (
    id                   TEXT PRIMARY KEY,
    account_id           TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id             TEXT REFERENCES agents (id) ON DELETE CASCADE,
    source_connection_id TEXT,
    alert_type           TEXT NOT NULL,
    enabled              BOOLEAN NOT NULL,
    threshold            TEXT,
    cooldown_minutes     INTEGER NOT NULL,
    last_alerted_at      DATETIME,
    distribution_type    TEXT NOT NULL,
    recipient_user_ids   TEXT NOT NULL, -- JSON list of user ids
    extra                TEXT,
    created_at           DATETIME NOT NULL,
    updated_at           DATETIME NOT NULL
);
CREATE INDEX alert_configs_account ON alert_configs (account_id, id);
CREATE INDEX alert_configs_agent ON alert_configs (agent_id) WHERE agent_id IS NOT NULL;

-- Evaluation criteria of agent steps (EvaluationCriteriaResponse; the
-- result summary is computed from results, not stored).
CREATE TABLE evaluation_criteria (
    id                 TEXT PRIMARY KEY,
    account_id         TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id           TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    step_id            TEXT,
    description        TEXT,
    evaluation_mode    TEXT NOT NULL,
    enabled            BOOLEAN NOT NULL,
    expectation_config TEXT,
    max_retries        INTEGER NOT NULL,
    retry_on_failure   BOOLEAN NOT NULL,
    evaluation_prompt  TEXT,
    pass_threshold     DOUBLE PRECISION NOT NULL,
    evaluation_tier    TEXT,
    extra              TEXT,
    created_at         DATETIME NOT NULL,
    updated_at         DATETIME NOT NULL
);
CREATE INDEX evaluation_criteria_agent ON evaluation_criteria (account_id, agent_id);

-- Governance policies; agent_id set for agent-scoped policies, NULL for
-- account-wide ones. Policy documents live in knowledge bases.
CREATE TABLE governance_policies (
    id                 TEXT PRIMARY KEY,
    account_id         TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id           TEXT REFERENCES agents (id) ON DELETE CASCADE,
    name               TEXT NOT NULL,
    description        TEXT,
    policy_type        TEXT,
    enabled            BOOLEAN NOT NULL,
    config             TEXT,
    knowledge_base_ids TEXT NOT NULL, -- JSON list
    extra              TEXT,
    created_at         DATETIME NOT NULL,
    updated_at         DATETIME NOT NULL
);
CREATE INDEX governance_policies_account ON governance_policies (account_id, agent_id);

-- Solutions group an account's agents (and later its knowledge bases and
-- sources); imports link an agent to the solutions named in the payload.
CREATE TABLE solutions (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    created_at  DATETIME NOT NULL,
    updated_at  DATETIME NOT NULL
);
CREATE INDEX solutions_account ON solutions (account_id, name);

CREATE TABLE solution_agents (
    solution_id TEXT NOT NULL REFERENCES solutions (id) ON DELETE CASCADE,
    agent_id    TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    account_id  TEXT NOT NULL,
    created_at  DATETIME NOT NULL,
    PRIMARY KEY (solution_id, agent_id)
);
CREATE INDEX solution_agents_agent ON solution_agents (agent_id);

-- Files uploaded as run input. The file and its extracted text live in the
-- blob store; the row tracks extraction and expiry.
CREATE TABLE agent_input_uploads (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id     TEXT NOT NULL,
    filename     TEXT NOT NULL,
    content_type TEXT NOT NULL,
    file_size    BIGINT NOT NULL,
    sha256       TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('processing', 'ready', 'failed')),
    error        TEXT,
    blob_key     TEXT NOT NULL,
    text_key     TEXT,   -- the extracted text; NULL when there is none
    text_chars   BIGINT,
    extractor    TEXT,   -- what produced the text (plain, html, pdf, docx…) or none
    note         TEXT,   -- why there is no text, for files passed on as they are
    created_by   TEXT,
    created_at   DATETIME NOT NULL,
    processed_at DATETIME,
    expires_at   DATETIME NOT NULL
);
CREATE INDEX agent_input_uploads_agent ON agent_input_uploads (account_id, agent_id);
CREATE INDEX agent_input_uploads_expiry ON agent_input_uploads (expires_at);

-- +goose Down
DROP TABLE agent_input_uploads;
DROP TABLE solution_agents;
DROP TABLE solutions;
DROP TABLE governance_policies;
DROP TABLE evaluation_criteria;
DROP TABLE alert_configs;
DROP TABLE trigger_schedules;
DROP TABLE agent_triggers;
DROP TABLE agent_calls;
DROP TABLE agent_definition_history;
DROP TABLE agents;
