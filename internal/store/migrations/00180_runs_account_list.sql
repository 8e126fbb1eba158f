-- +goose Up
-- The account-wide runs list (GET /runs, the console's runs page) walks an
-- account's runs newest first by id (ids are UUIDv7, so id order is creation
-- order and a time window is an id range), optionally by status or trigger;
-- each filter has an index that serves the walk without a sort, so a page
-- costs the same at 100 runs or 100,000. Sub-runs are found by their parent.
CREATE INDEX runs_account_id ON runs (account_id, id);
CREATE INDEX runs_account_status_id ON runs (account_id, status, id);
CREATE INDEX runs_account_trigger_id ON runs (account_id, trigger_type, id);
CREATE INDEX runs_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;

-- +goose Down
DROP INDEX runs_parent;
DROP INDEX runs_account_trigger_id;
DROP INDEX runs_account_status_id;
DROP INDEX runs_account_id;
