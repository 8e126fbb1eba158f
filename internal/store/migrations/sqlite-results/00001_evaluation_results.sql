-- +goose Up
-- The SQLite evaluation results file (store.DB.Results) has a migration
-- history of its own. Its evaluation_results is the table of migration
-- 00030 of the database, without foreign keys: they cannot reach across
-- files. Deleting a criterion deletes its results explicitly, and
-- criteria_deletions records a deletion until its results are gone, so a
-- crash between the two writes is finished on the next pass.
CREATE TABLE evaluation_results (
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL,
    agent_id          TEXT NOT NULL,
    criteria_id       TEXT NOT NULL,
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

CREATE TABLE criteria_deletions (
    criteria_id TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL
);

-- +goose Down
DROP TABLE criteria_deletions;
DROP TABLE evaluation_results;
