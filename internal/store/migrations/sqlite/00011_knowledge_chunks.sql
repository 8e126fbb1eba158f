-- +goose Up
-- Chunks of indexed contents with their embeddings (little-endian float32),
-- and the lexical index over their text: an FTS5 table reading its text from
-- kb_chunks (content_rowid = seq), kept in step by triggers. The vector side
-- lives in process, rebuilt from the embeddings at start.
CREATE TABLE kb_chunks (
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
CREATE INDEX kb_chunks_content ON kb_chunks (content_id, ordinal);
CREATE INDEX kb_chunks_source ON kb_chunks (source_id);

CREATE VIRTUAL TABLE kb_chunks_fts USING fts5(text, content='kb_chunks', content_rowid='seq', tokenize='porter unicode61');

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
DROP TABLE kb_chunks_fts;
DROP TABLE kb_chunks;
