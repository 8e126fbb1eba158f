-- +goose Up
-- One row per metered model call: what it cost, what it was for, and the
-- run step or experiment it belongs to. The ledger entry that paid for it
-- is written in the same transaction.
CREATE TABLE model_usage (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    purpose        TEXT NOT NULL,
    model          TEXT NOT NULL,
    input_tokens   BIGINT NOT NULL DEFAULT 0,
    output_tokens  BIGINT NOT NULL DEFAULT 0,
    cached_tokens  BIGINT NOT NULL DEFAULT 0,
    credits        BIGINT NOT NULL, -- micro-credits
    latency_ms     BIGINT NOT NULL DEFAULT 0,
    run_id         TEXT,
    step_id        TEXT,
    experiment_id  TEXT,
    created_at     DATETIME NOT NULL
);
CREATE INDEX model_usage_account ON model_usage (account_id, created_at);
CREATE INDEX model_usage_run ON model_usage (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX model_usage_experiment ON model_usage (experiment_id) WHERE experiment_id IS NOT NULL;

-- +goose Down
DROP TABLE model_usage;
