-- +goose Up
-- The hosts an account secret may be sent to, set by whoever stores it (an
-- owner or admin): a JSON list of host patterns. NULL for secrets stored
-- before binding existed; such a secret is sent nowhere until it is bound.
ALTER TABLE account_secrets ADD COLUMN hosts TEXT;

-- +goose Down
ALTER TABLE account_secrets DROP COLUMN hosts;
