-- +goose Up
-- Regression runs (an extension, docs/regressions.md): recorded runs of an
-- agent replayed on a version of its workflow in the background, each
-- replay's output judged with the agent's evaluation criteria and compared
-- with the original's.
CREATE TABLE regressions (
    id               TEXT PRIMARY KEY,
    account_id       TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id         TEXT NOT NULL,
    change_id        TEXT NOT NULL, -- the version the recorded runs are replayed on
    status           TEXT NOT NULL, -- queued, running, completed, cancelled
    selection        TEXT NOT NULL, -- last_runs or run_ids: how the runs were chosen
    estimate         BIGINT NOT NULL DEFAULT 0, -- micro-credits, estimated up front
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    created_at       DATETIME NOT NULL,
    started_at       DATETIME,
    ended_at         DATETIME,
    updated_at       DATETIME NOT NULL
);
CREATE INDEX regressions_agent ON regressions (account_id, agent_id, id);

-- One row per recorded run: its replay (NULL until created, set in the
-- transaction that creates the replay run, so a regression resumed after a
-- crash never replays a run twice) and, once the replay ended, the verdicts.
CREATE TABLE regression_items (
    regression_id  TEXT NOT NULL REFERENCES regressions (id) ON DELETE CASCADE,
    position       INTEGER NOT NULL,
    source_run_id  TEXT NOT NULL,
    replay_run_id  TEXT,
    status         TEXT NOT NULL, -- pending, replaying, done, cancelled
    outcome        TEXT,          -- unchanged or changed, once done
    similarity     DOUBLE PRECISION,
    source_passed  BOOLEAN,
    replay_passed  BOOLEAN,
    source_checks  TEXT,          -- JSON: the criteria's verdicts on the original
    replay_checks  TEXT,          -- JSON: the criteria's verdicts on the replay
    judge_credits  BIGINT NOT NULL DEFAULT 0, -- micro-credits the judging cost
    PRIMARY KEY (regression_id, source_run_id)
);
CREATE UNIQUE INDEX regression_items_position ON regression_items (regression_id, position);

-- A replay is a run marked with its regression: left out of alerts,
-- production metrics and the run lists unless asked for.
ALTER TABLE runs ADD COLUMN regression_id TEXT;
CREATE INDEX runs_regression ON runs (regression_id) WHERE regression_id IS NOT NULL;

-- +goose Down
DROP INDEX runs_regression;
ALTER TABLE runs DROP COLUMN regression_id;
DROP TABLE regression_items;
DROP TABLE regressions;
