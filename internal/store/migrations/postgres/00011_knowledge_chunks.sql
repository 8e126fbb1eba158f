-- +goose Up
-- Chunks of indexed contents with their embeddings (little-endian float32)
-- and a generated tsvector for the lexical side. The vector side is
-- pgvector's HNSW where the extension is available (kb_chunk_vectors,
-- created at start by the knowledge index), else the in-process index.
CREATE TABLE kb_chunks (
    seq            BIGSERIAL PRIMARY KEY,
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
    embedding      BYTEA NOT NULL,
    batch_size     INTEGER NOT NULL,
    batch_duration DOUBLE PRECISION NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    tsv            tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED
);
CREATE INDEX kb_chunks_content ON kb_chunks (content_id, ordinal);
CREATE INDEX kb_chunks_source ON kb_chunks (source_id);
CREATE INDEX kb_chunks_tsv ON kb_chunks USING gin (tsv);

-- +goose Down
DROP TABLE kb_chunks;
