-- +goose Up
-- A bank's stats (GET /memory_banks/{id}/stats) read totals kept as its
-- entries are written, per UTC day, instead of adding up every entry of
-- the period (internal/store/memory_stat_totals.go keeps them, in the
-- transaction of each write). A day is 'YYYY-MM-DD' of created_at in UTC,
-- as on SQLite. Only live entries (deleted_at IS NULL) count; a row
-- reaching zero is deleted. Keys and labels compare bytewise (COLLATE
-- "C"), as SQLite's do.
--
-- memory_stat_tokens: per token count, how many entries, how many of
-- them summaries, and the sum of their creation times in microseconds
-- since the day's midnight (the average age comes from it).
CREATE TABLE memory_stat_tokens (
    bank_id    TEXT NOT NULL REFERENCES memory_banks (id) ON DELETE CASCADE,
    day        TEXT NOT NULL,
    tokens     INTEGER NOT NULL,
    entries    BIGINT NOT NULL,
    summaries  BIGINT NOT NULL,
    created_us BIGINT NOT NULL,
    PRIMARY KEY (bank_id, day, tokens)
);
-- memory_stat_keys: entries per conversation_key / group_key.
CREATE TABLE memory_stat_keys (
    bank_id       TEXT NOT NULL REFERENCES memory_banks (id) ON DELETE CASCADE,
    day           TEXT NOT NULL,
    partition_key TEXT COLLATE "C" NOT NULL,
    entries       BIGINT NOT NULL,
    PRIMARY KEY (bank_id, day, partition_key)
);
-- memory_stat_labels: entries per speaker (kind 'speaker'; entries with
-- none are not counted) and per tag (kind 'tag'; a tag listed twice on an
-- entry counts twice, as the stats always counted it).
CREATE TABLE memory_stat_labels (
    bank_id TEXT NOT NULL REFERENCES memory_banks (id) ON DELETE CASCADE,
    day     TEXT NOT NULL,
    kind    TEXT NOT NULL,
    label   TEXT COLLATE "C" NOT NULL,
    entries BIGINT NOT NULL,
    PRIMARY KEY (bank_id, day, kind, label)
);

-- The totals of the entries already there.
INSERT INTO memory_stat_tokens (bank_id, day, tokens, entries, summaries, created_us)
SELECT bank_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), tokens, COUNT(*), SUM(CASE WHEN summary THEN 1 ELSE 0 END),
    SUM(CAST(EXTRACT(EPOCH FROM (created_at AT TIME ZONE 'UTC') - date_trunc('day', created_at AT TIME ZONE 'UTC')) * 1000000 AS BIGINT))
FROM memory_entries WHERE deleted_at IS NULL
GROUP BY bank_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), tokens;

INSERT INTO memory_stat_keys (bank_id, day, partition_key, entries)
SELECT bank_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), partition_key, COUNT(*)
FROM memory_entries WHERE deleted_at IS NULL
GROUP BY bank_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), partition_key;

INSERT INTO memory_stat_labels (bank_id, day, kind, label, entries)
SELECT bank_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), 'speaker', speaker, COUNT(*)
FROM memory_entries WHERE deleted_at IS NULL AND speaker IS NOT NULL
GROUP BY bank_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), speaker
UNION ALL
SELECT e.bank_id, to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), 'tag', t.value, COUNT(*)
FROM memory_entries e CROSS JOIN LATERAL jsonb_array_elements_text(CAST(e.tags AS JSONB)) AS t(value) WHERE e.deleted_at IS NULL
GROUP BY e.bank_id, to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), t.value;

-- +goose Down
DROP TABLE memory_stat_labels;
DROP TABLE memory_stat_keys;
DROP TABLE memory_stat_tokens;
