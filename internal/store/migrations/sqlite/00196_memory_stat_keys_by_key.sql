-- +goose Up
-- The stats' keys read adds up a period's per-day key totals per key.
-- Read off this index, already in key order and carrying the count,
-- SQLite sums each key's days as they come instead of sorting every
-- (day, key) row of the period first (20,000 rows for 1,000 keys over 20
-- days, most of the panel's time). PostgreSQL hashes the groups and needs
-- none.
CREATE INDEX memory_stat_keys_by_key ON memory_stat_keys (bank_id, partition_key, day, entries);

-- +goose Down
DROP INDEX memory_stat_keys_by_key;
