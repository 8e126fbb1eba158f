-- +goose Up
-- A deleted agent no longer receives mail (routing reads live agents
-- only), yet its trigger kept its alias, and the alias index refused that
-- alias to every later agent of the account. DeleteAgent now clears it;
-- this frees the aliases agents deleted before then still hold.
UPDATE email_trigger_configs SET alias = NULL
WHERE alias IS NOT NULL
  AND agent_id IN (SELECT id FROM agents WHERE deleted_at IS NOT NULL);

-- +goose Down
-- Nothing to undo: which alias a deleted agent held is not needed.
SELECT 1;
