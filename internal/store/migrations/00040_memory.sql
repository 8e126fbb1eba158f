-- +goose Up
-- Memory banks: a bank's settings, its entries (conversation turns, per
-- conversation_key partition, or general entries, per group_key
-- partition), and the memory-bank assistant's conversation turns. A bank's
-- entries are the system of record; a general bank's entries are also
-- indexed as contents of the bank's source connection for search.
CREATE TABLE memory_banks (
    id                   TEXT PRIMARY KEY,
    account_id           TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name                 TEXT NOT NULL,
    description          TEXT,
    bank_type            TEXT NOT NULL, -- conversation, general
    mode                 TEXT NOT NULL, -- fast_and_cheap, balanced, slow_and_thorough, custom
    embedding_model      TEXT,
    dimensions           INTEGER,
    chunk_size           INTEGER,
    chunk_overlap        INTEGER,
    retention_days       INTEGER,
    max_turns            INTEGER,
    max_size_tokens      INTEGER,
    max_age_days         INTEGER,
    compaction_prompt    TEXT,
    source_connection_id TEXT,
    created_at           DATETIME NOT NULL,
    updated_at           DATETIME NOT NULL,
    deleted_at           DATETIME
);
CREATE INDEX memory_banks_account ON memory_banks (account_id, created_at);

-- memory_entries: summary rows (written by compaction) sort before the
-- turns they replaced; replaced rows are soft-deleted in the same
-- transaction that writes the summary.
CREATE TABLE memory_entries (
    id            TEXT PRIMARY KEY,
    account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    bank_id       TEXT NOT NULL REFERENCES memory_banks (id) ON DELETE CASCADE,
    partition_key TEXT NOT NULL, -- conversation_key or group_key ("" when none)
    speaker       TEXT,
    content       TEXT NOT NULL,
    metadata      TEXT NOT NULL, -- JSON object
    tags          TEXT NOT NULL, -- JSON list
    tokens        INTEGER NOT NULL,
    summary       BOOLEAN NOT NULL,
    content_id    TEXT,          -- the indexed content (general banks)
    run_id        TEXT,
    created_at    DATETIME NOT NULL,
    deleted_at    DATETIME
);
CREATE INDEX memory_entries_partition ON memory_entries (bank_id, partition_key, summary, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX memory_entries_account ON memory_entries (account_id, bank_id);

CREATE TABLE memory_assistant_turns (
    id               TEXT PRIMARY KEY,
    account_id       TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    user_id          TEXT NOT NULL,
    user_input       TEXT NOT NULL,
    ai_note          TEXT,
    resulting_config TEXT,    -- JSON object, NULL when none was proposed
    accepted         BOOLEAN, -- NULL until accepted or declined
    memory_bank_id   TEXT,    -- the bank an accepted proposal created or updated
    created_at       DATETIME NOT NULL
);
CREATE INDEX memory_assistant_turns_user ON memory_assistant_turns (account_id, user_id, created_at);

-- +goose Down
DROP TABLE memory_assistant_turns;
DROP TABLE memory_entries;
DROP TABLE memory_banks;
