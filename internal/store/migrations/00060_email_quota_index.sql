-- +goose Up
-- The hourly email-trigger quota counts an account's email runs created
-- or started in the last hour for every inbound message; without these it
-- read every run of the account (their inputs included), so each message
-- cost more than the one before. Status is in the index so the count
-- never touches the table.
CREATE INDEX runs_email_quota_created ON runs (account_id, trigger_type, created_at, status);
CREATE INDEX runs_email_quota_started ON runs (account_id, trigger_type, started_at, status);

-- +goose Down
DROP INDEX runs_email_quota_started;
DROP INDEX runs_email_quota_created;
