-- +goose Up
-- Source exports: one row per export job of a source's contents, written
-- in the background to the blob store. Deleting an export keeps the row
-- for audit (deleted_at) and removes the file.
CREATE TABLE source_exports (
    id                     TEXT PRIMARY KEY,
    account_id             TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    source_id              TEXT NOT NULL,
    format                 TEXT NOT NULL, -- jsonl, csv, parquet, zip
    status                 TEXT NOT NULL, -- pending, running, completed, failed, cancelled
    date_from              DATETIME,
    date_to                DATETIME,
    metadata_filter        TEXT,          -- JSON object, NULL for none
    query_filter           TEXT,
    estimated_size_bytes   BIGINT,
    progress_current       INTEGER NOT NULL,
    progress_total         INTEGER,
    item_count             INTEGER,
    file_size_bytes        BIGINT,
    storage_key            TEXT,
    error                  TEXT,
    requested_by_user_id   TEXT,
    requested_by_user_name TEXT,
    expires_at             DATETIME,
    started_at             DATETIME,
    completed_at           DATETIME,
    created_at             DATETIME NOT NULL,
    updated_at             DATETIME NOT NULL,
    deleted_at             DATETIME
);
CREATE INDEX source_exports_source ON source_exports (account_id, source_id, created_at);

-- +goose Down
DROP TABLE source_exports;
