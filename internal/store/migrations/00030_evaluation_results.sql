-- +goose Up
-- Results of evaluation criteria: recorded by the engine when it judges a
-- step (eval_and_retry, sample_and_flag) or pushed by external harnesses
-- (POST /agents/evaluation-criteria/{id}/results). agent_id and step_id are
-- copied from the criterion so lists by agent and step read one table;
-- evaluation_mode is the mode the result was recorded under, which the
-- non-manual summary groups by.
CREATE TABLE evaluation_results (
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id          TEXT NOT NULL,
    criteria_id       TEXT NOT NULL REFERENCES evaluation_criteria (id) ON DELETE CASCADE,
    agent_run_id      TEXT NOT NULL,
    agent_step_run_id TEXT,
    step_id           TEXT,
    evaluation_mode   TEXT NOT NULL,
    status            TEXT NOT NULL,
    score             DOUBLE PRECISION,
    flagged           BOOLEAN NOT NULL,
    retry_triggered   BOOLEAN NOT NULL,
    retry_count       INTEGER NOT NULL,
    details           TEXT,
    evaluated_at      DATETIME NOT NULL,
    created_at        DATETIME NOT NULL
);
CREATE INDEX evaluation_results_criteria ON evaluation_results (account_id, criteria_id, created_at);
CREATE INDEX evaluation_results_agent ON evaluation_results (account_id, agent_id, created_at);
CREATE INDEX evaluation_results_run ON evaluation_results (account_id, agent_run_id);

-- +goose Down
DROP TABLE evaluation_results;
