-- +goose Up
-- runs.change_id is the agent's workflow version (agents.change_id, or a
-- change_id of agent_definition_history) the run executes: chosen when
-- the run is created, so a run resumed after a crash, or started on an
-- older version to compare, runs the same workflow on every attempt.
-- NULL for runs created before it existed (they run the current one).
ALTER TABLE runs ADD COLUMN change_id TEXT;
-- A rerun (POST /agents/runs/{run_id}/rerun) names the run it came from,
-- the step it runs again from, and the input it gives that step instead
-- of the recorded one (NULL: the recorded input).
ALTER TABLE runs ADD COLUMN rerun_of_run_id TEXT;
ALTER TABLE runs ADD COLUMN rerun_from_step TEXT;
ALTER TABLE runs ADD COLUMN rerun_input TEXT;
-- "Which runs were rerun from this one" is an index lookup.
CREATE INDEX runs_rerun_of ON runs (rerun_of_run_id) WHERE rerun_of_run_id IS NOT NULL;
-- Versions are listed newest first.
CREATE INDEX agent_definition_history_saved ON agent_definition_history (agent_id, saved_at);

-- +goose Down
DROP INDEX agent_definition_history_saved;
DROP INDEX runs_rerun_of;
ALTER TABLE runs DROP COLUMN rerun_input;
ALTER TABLE runs DROP COLUMN rerun_from_step;
ALTER TABLE runs DROP COLUMN rerun_of_run_id;
ALTER TABLE runs DROP COLUMN change_id;
