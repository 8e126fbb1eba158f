-- +goose Up
-- oversight_rev counts the changes to what oversees an agent's runs: the
-- agent's own settings, its evaluation criteria and the governance
-- policies over it (its own and its account's). Runs read it with the
-- agent row, so overseers keep what they loaded for the same revision
-- instead of reading criteria and policies again at every run's start.
ALTER TABLE agents ADD COLUMN oversight_rev BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE agents DROP COLUMN oversight_rev;
