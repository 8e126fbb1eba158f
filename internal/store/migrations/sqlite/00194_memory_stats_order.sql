-- +goose Up
-- A bank's stats (GET /memory_banks/{id}/stats) group its live entries by
-- token count, speaker and tag list. Read in that order off this index,
-- SQLite groups them as they come instead of sorting 100,000 rows first
-- (and the by-key grouping reads memory_entries_key_time, already in key
-- order). PostgreSQL hashes the groups and needs neither.
CREATE INDEX memory_entries_bank_stats ON memory_entries (bank_id, tokens, speaker, tags, created_at, summary) WHERE deleted_at IS NULL;

-- +goose Down
DROP INDEX memory_entries_bank_stats;
