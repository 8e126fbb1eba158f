-- +goose Up
-- The vectors an embedding migration stages before its switch.
CREATE TABLE embedding_migration_vectors (
    migration_id TEXT NOT NULL REFERENCES embedding_migrations (id) ON DELETE CASCADE,
    chunk_seq    BIGINT NOT NULL,
    embedding    BYTEA NOT NULL,
    PRIMARY KEY (migration_id, chunk_seq)
);

-- +goose Down
DROP TABLE embedding_migration_vectors;
