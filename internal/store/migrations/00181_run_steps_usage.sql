-- +goose Up
-- The model a step attempt called and the tokens it used (summed over its
-- calls: a tool loop bills every round), for a run's page and
-- GET /runs/{run_id}. Steps without model calls keep NULL and 0.
ALTER TABLE run_steps ADD COLUMN model TEXT;
ALTER TABLE run_steps ADD COLUMN input_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE run_steps ADD COLUMN output_tokens BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE run_steps DROP COLUMN output_tokens;
ALTER TABLE run_steps DROP COLUMN input_tokens;
ALTER TABLE run_steps DROP COLUMN model;
