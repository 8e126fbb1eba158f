-- +goose Up
-- What the governance input check decided for a run (safe, blocked,
-- skipped); NULL when no policy checked it. The policies a run's verdicts
-- name are read from governance_violations by run, hence its index.
ALTER TABLE runs ADD COLUMN governance_input_status TEXT;
CREATE INDEX governance_violations_run ON governance_violations (run_id);

-- +goose Down
DROP INDEX governance_violations_run;
ALTER TABLE runs DROP COLUMN governance_input_status;
