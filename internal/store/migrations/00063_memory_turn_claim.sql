-- +goose Up
-- claimed_at marks a memory-assistant proposal being accepted: the accept
-- claims the turn before it creates the bank, so two accepts of one turn
-- cannot both create one. A claim left by a crashed process lapses after
-- a minute (see ClaimMemoryAssistantTurn).
ALTER TABLE memory_assistant_turns ADD COLUMN claimed_at DATETIME;

-- +goose Down
ALTER TABLE memory_assistant_turns DROP COLUMN claimed_at;
