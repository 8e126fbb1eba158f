-- +goose Up
-- The lexical side of knowledge search moved into the process
-- (internal/knowledge/lexical: BM25F over the passage and its content's
-- title and metadata, statistics per source, so per tenant); the
-- generated tsvector and its GIN index are no longer read.
ALTER TABLE kb_chunks DROP COLUMN tsv;

-- +goose Down
ALTER TABLE kb_chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED;
CREATE INDEX kb_chunks_tsv ON kb_chunks USING gin (tsv);
