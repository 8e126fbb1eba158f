-- +goose Up
-- The lexical side of knowledge search moved into the process
-- (internal/knowledge/lexical: BM25F over the passage and its content's
-- title and metadata, statistics per source, so per tenant); the FTS5
-- table and the triggers that kept it in step are no longer read.
DROP TRIGGER kb_chunks_fts_delete;
DROP TRIGGER kb_chunks_fts_insert;
DROP TABLE kb_chunks_fts;

-- +goose Down
CREATE VIRTUAL TABLE kb_chunks_fts USING fts5(text, content='kb_chunks', content_rowid='seq', tokenize='porter unicode61');
INSERT INTO kb_chunks_fts (kb_chunks_fts) VALUES ('rebuild');
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
