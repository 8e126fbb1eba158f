-- +goose Up
-- Browsing a bank (GET /memory_banks/{id}/entries and /keys) and adding
-- up its entries (/stats) at 100,000 entries: a bank's live entries newest
-- first, and a key's. The key index also serves the key list, walked in
-- byte order (COLLATE "C", whatever the database's collation, so prefix
-- ranges and cursors mean the same as on SQLite) and counted from the
-- index alone. The time index carries what the stats add up (tokens,
-- summary, key, speaker, tags) so they read the index, not the table.
CREATE INDEX memory_entries_bank_time ON memory_entries (bank_id, created_at, id) INCLUDE (tokens, summary, partition_key, speaker, tags) WHERE deleted_at IS NULL;
CREATE INDEX memory_entries_key_time ON memory_entries (bank_id, partition_key COLLATE "C", created_at, id) WHERE deleted_at IS NULL;

-- +goose Down
DROP INDEX memory_entries_key_time;
DROP INDEX memory_entries_bank_time;
