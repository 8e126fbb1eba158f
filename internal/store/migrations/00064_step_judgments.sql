-- +goose Up
-- run_steps.judgments holds the evaluation results the engine made of a
-- step attempt (a JSON array), journaled with the attempt in the write
-- that records it. runs.judgments_pending marks a run that journaled some
-- since MaterializeJudgments last copied its judgments into
-- evaluation_results: set as the run ends or parks, in the same write,
-- cleared by the copy. The partial index holds only marked runs.
ALTER TABLE run_steps ADD COLUMN judgments TEXT;
ALTER TABLE runs ADD COLUMN judgments_pending BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX runs_judgments_pending ON runs (id) WHERE judgments_pending;

-- +goose Down
DROP INDEX runs_judgments_pending;
ALTER TABLE runs DROP COLUMN judgments_pending;
ALTER TABLE run_steps DROP COLUMN judgments;
