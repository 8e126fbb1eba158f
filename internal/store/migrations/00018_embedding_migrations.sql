-- +goose Up
-- Embedding migrations: re-embedding a source's chunks with another model
-- and size in the background. The new vectors are staged beside the live
-- index (embedding_migration_vectors, by dialect: 00019) and swapped in by one transaction
-- that also switches the source's model, so searches use the old index
-- until the new one is whole; a cancel drops the staged vectors only.
CREATE TABLE embedding_migrations (
    id                      TEXT PRIMARY KEY,
    account_id              TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    source_id               TEXT NOT NULL,
    old_model               TEXT NOT NULL,
    old_dims                INTEGER NOT NULL,
    target_model            TEXT NOT NULL,
    target_dims             INTEGER NOT NULL,
    status                  TEXT NOT NULL, -- pending, running, switching, completed, failed, cancelled
    phase                   TEXT NOT NULL, -- queued, embedding, switching, done
    progress_current        INTEGER NOT NULL,
    progress_total          INTEGER NOT NULL,
    progress_message        TEXT,
    failure_message         TEXT,
    notification_recipients TEXT,          -- JSON list, stored for later
    started_at              DATETIME,
    completed_at            DATETIME,
    created_at              DATETIME NOT NULL,
    updated_at              DATETIME NOT NULL
);
CREATE INDEX embedding_migrations_source ON embedding_migrations (account_id, source_id, created_at);

-- +goose Down
DROP TABLE embedding_migrations;
