-- +goose Up
-- A bank's stats (GET /memory_banks/{id}/stats) read totals kept as its
-- entries are written, per UTC day, instead of adding up every entry of
-- the period (internal/store/memory_stat_totals.go keeps them, in the
-- transaction of each write). A day is 'YYYY-MM-DD' of created_at (UTC).
-- Only live entries (deleted_at IS NULL) count; a row reaching zero is
-- deleted.
--
-- memory_stat_tokens: per token count, how many entries, how many of
-- them summaries, and the sum of their creation times in microseconds
-- since the day's midnight (the average age comes from it).
CREATE TABLE memory_stat_tokens (
    bank_id    TEXT NOT NULL REFERENCES memory_banks (id) ON DELETE CASCADE,
    day        TEXT NOT NULL,
    tokens     INTEGER NOT NULL,
    entries    INTEGER NOT NULL,
    summaries  INTEGER NOT NULL,
    created_us INTEGER NOT NULL,
    PRIMARY KEY (bank_id, day, tokens)
) WITHOUT ROWID;
-- memory_stat_keys: entries per conversation_key / group_key.
CREATE TABLE memory_stat_keys (
    bank_id       TEXT NOT NULL REFERENCES memory_banks (id) ON DELETE CASCADE,
    day           TEXT NOT NULL,
    partition_key TEXT NOT NULL,
    entries       INTEGER NOT NULL,
    PRIMARY KEY (bank_id, day, partition_key)
) WITHOUT ROWID;
-- memory_stat_labels: entries per speaker (kind 'speaker'; entries with
-- none are not counted) and per tag (kind 'tag'; a tag listed twice on an
-- entry counts twice, as the stats always counted it).
CREATE TABLE memory_stat_labels (
    bank_id TEXT NOT NULL REFERENCES memory_banks (id) ON DELETE CASCADE,
    day     TEXT NOT NULL,
    kind    TEXT NOT NULL,
    label   TEXT NOT NULL,
    entries INTEGER NOT NULL,
    PRIMARY KEY (bank_id, day, kind, label)
) WITHOUT ROWID;

-- The totals of the entries already there. created_at is stored as Go
-- writes a UTC time ("2006-01-02 15:04:05.999999999 +0000 UTC"): the day
-- is its first ten characters, the time of day its next ones, the
-- fraction (0 to 9 digits) read to the microsecond.
INSERT INTO memory_stat_tokens (bank_id, day, tokens, entries, summaries, created_us)
SELECT bank_id, substr(created_at, 1, 10), tokens, COUNT(*), SUM(CASE WHEN summary THEN 1 ELSE 0 END),
    SUM(((CAST(substr(created_at, 12, 2) AS INTEGER) * 60 + CAST(substr(created_at, 15, 2) AS INTEGER)) * 60
        + CAST(substr(created_at, 18, 2) AS INTEGER)) * 1000000
        + CAST(substr(substr(created_at, 20, instr(created_at, ' +') - 20) || '0000000', 2, 6) AS INTEGER))
FROM memory_entries WHERE deleted_at IS NULL AND bank_id IN (SELECT id FROM memory_banks)
GROUP BY bank_id, substr(created_at, 1, 10), tokens;

INSERT INTO memory_stat_keys (bank_id, day, partition_key, entries)
SELECT bank_id, substr(created_at, 1, 10), partition_key, COUNT(*)
FROM memory_entries WHERE deleted_at IS NULL AND bank_id IN (SELECT id FROM memory_banks)
GROUP BY bank_id, substr(created_at, 1, 10), partition_key;

INSERT INTO memory_stat_labels (bank_id, day, kind, label, entries)
SELECT bank_id, substr(created_at, 1, 10), 'speaker', speaker, COUNT(*)
FROM memory_entries WHERE deleted_at IS NULL AND speaker IS NOT NULL AND bank_id IN (SELECT id FROM memory_banks)
GROUP BY bank_id, substr(created_at, 1, 10), speaker
UNION ALL
SELECT e.bank_id, substr(e.created_at, 1, 10), 'tag', t.value, COUNT(*)
FROM memory_entries e, json_each(e.tags) t WHERE e.deleted_at IS NULL AND e.bank_id IN (SELECT id FROM memory_banks)
GROUP BY e.bank_id, substr(e.created_at, 1, 10), t.value;

-- The stats no longer group a bank's entries by token count, speaker and
-- tag list (migration 00194's index served only that): one index fewer
-- to write on every insert.
DROP INDEX memory_entries_bank_stats;

-- +goose Down
CREATE INDEX memory_entries_bank_stats ON memory_entries (bank_id, tokens, speaker, tags, created_at, summary) WHERE deleted_at IS NULL;
DROP TABLE memory_stat_labels;
DROP TABLE memory_stat_keys;
DROP TABLE memory_stat_tokens;
