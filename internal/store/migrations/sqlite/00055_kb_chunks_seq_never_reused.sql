-- +goose Up
-- A chunk's seq is never reused on SQLite. As a plain INTEGER PRIMARY KEY,
-- deleting the newest chunks (replacing the latest content) let the next
-- insert take their seqs again, and the in-process vector index, which
-- follows the table by seq and keeps its graph in a snapshot, kept the old
-- vector under the new chunk's seq or skipped the new chunk. AUTOINCREMENT
-- makes seqs strictly increasing, as BIGSERIAL is on PostgreSQL. The
-- lexical index (FTS5 over content_rowid = seq) keeps its rows: every seq
-- is copied unchanged.
DROP TRIGGER kb_chunks_fts_delete;
DROP TRIGGER kb_chunks_fts_insert;
CREATE TABLE kb_chunks_rebuilt (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    id             TEXT NOT NULL UNIQUE,
    account_id     TEXT NOT NULL,
    source_id      TEXT NOT NULL,
    content_id     TEXT NOT NULL REFERENCES contents (id) ON DELETE CASCADE,
    version_id     TEXT NOT NULL,
    ordinal        INTEGER NOT NULL,
    text_start     INTEGER NOT NULL,
    text_end       INTEGER NOT NULL,
    text           TEXT NOT NULL,
    model          TEXT NOT NULL,
    dims           INTEGER NOT NULL,
    embedding      BLOB NOT NULL,
    batch_size     INTEGER NOT NULL,
    batch_duration REAL NOT NULL,
    created_at     DATETIME NOT NULL
);
INSERT INTO kb_chunks_rebuilt SELECT * FROM kb_chunks;
DROP TABLE kb_chunks;
ALTER TABLE kb_chunks_rebuilt RENAME TO kb_chunks;
CREATE INDEX kb_chunks_content ON kb_chunks (content_id, ordinal);
CREATE INDEX kb_chunks_source ON kb_chunks (source_id);

-- +goose StatementBegin
CREATE TRIGGER kb_chunks_fts_insert AFTER INSERT ON kb_chunks BEGIN
    INSERT INTO kb_chunks_fts (rowid, text) VALUES (new.seq, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER kb_chunks_fts_delete AFTER DELETE ON kb_chunks BEGIN
    INSERT INTO kb_chunks_fts (kb_chunks_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER kb_chunks_fts_delete;
DROP TRIGGER kb_chunks_fts_insert;
CREATE TABLE kb_chunks_rebuilt (
    seq            INTEGER PRIMARY KEY,
    id             TEXT NOT NULL UNIQUE,
    account_id     TEXT NOT NULL,
    source_id      TEXT NOT NULL,
    content_id     TEXT NOT NULL REFERENCES contents (id) ON DELETE CASCADE,
    version_id     TEXT NOT NULL,
    ordinal        INTEGER NOT NULL,
    text_start     INTEGER NOT NULL,
    text_end       INTEGER NOT NULL,
    text           TEXT NOT NULL,
    model          TEXT NOT NULL,
    dims           INTEGER NOT NULL,
    embedding      BLOB NOT NULL,
    batch_size     INTEGER NOT NULL,
    batch_duration REAL NOT NULL,
    created_at     DATETIME NOT NULL
);
INSERT INTO kb_chunks_rebuilt SELECT * FROM kb_chunks;
DROP TABLE kb_chunks;
ALTER TABLE kb_chunks_rebuilt RENAME TO kb_chunks;
CREATE INDEX kb_chunks_content ON kb_chunks (content_id, ordinal);
CREATE INDEX kb_chunks_source ON kb_chunks (source_id);

-- +goose StatementBegin
CREATE TRIGGER kb_chunks_fts_insert AFTER INSERT ON kb_chunks BEGIN
    INSERT INTO kb_chunks_fts (rowid, text) VALUES (new.seq, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER kb_chunks_fts_delete AFTER DELETE ON kb_chunks BEGIN
    INSERT INTO kb_chunks_fts (kb_chunks_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;
-- +goose StatementEnd
