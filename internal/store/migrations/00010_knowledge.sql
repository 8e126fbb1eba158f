-- +goose Up
-- Knowledge: URL records, sources, their contents (one row per content
-- item, carrying its current version), attachments agents write to
-- contents, and knowledge bases over sources. Chunks and the search index
-- differ by dialect (migrations/<dialect>/00011_knowledge_chunks.sql).

-- A URL record: what the contract's url_id names. Creating an rss or
-- website source from a URL makes (or reuses) one.
CREATE TABLE source_urls (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    url        TEXT NOT NULL,
    created_at DATETIME NOT NULL,
    UNIQUE (account_id, url)
);

CREATE TABLE sources (
    id                     TEXT PRIMARY KEY,
    account_id             TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name                   TEXT NOT NULL,
    source_type            TEXT NOT NULL, -- custom_index, rss, website
    url_id                 TEXT,
    url                    TEXT,
    index_mode             TEXT,
    chunk_size             INTEGER NOT NULL,
    chunk_overlap          INTEGER NOT NULL,
    chunk_separators       TEXT,          -- JSON list of separators, NULL for the defaults
    chunk_regex_separators BOOLEAN NOT NULL,
    chunk_language         TEXT,
    embedding_model        TEXT NOT NULL, -- "offline" for the built-in embedder
    dimensions             INTEGER NOT NULL,
    content_filter         TEXT NOT NULL,
    media_types            TEXT NOT NULL, -- JSON list
    polling                TEXT,
    polling_action         TEXT,
    polling_max_items      INTEGER,
    retention              INTEGER,       -- days; NULL keeps content forever
    system_managed         BOOLEAN NOT NULL,
    readonly               BOOLEAN NOT NULL,
    pulled_at              DATETIME,
    next_poll_at           DATETIME,
    poll_state             TEXT NOT NULL, -- JSON: conditional-GET validators, last error
    created_at             DATETIME NOT NULL,
    updated_at             DATETIME NOT NULL,
    deleted_at             DATETIME
);
CREATE INDEX sources_account ON sources (account_id, created_at);
CREATE INDEX sources_due ON sources (next_poll_at) WHERE deleted_at IS NULL AND next_poll_at IS NOT NULL;

-- contents: one row per content item of a source (the contract's
-- SourceConnectionContentVersion, whose id stays stable). version_id names
-- the current version; replacing the content makes a new one, and the
-- indexing job swaps the old version's chunks for the new one's in one
-- transaction.
CREATE TABLE contents (
    id               TEXT PRIMARY KEY,
    account_id       TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    source_id        TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    item_key         TEXT NOT NULL, -- identity within the source: feed GUID, page URL, or the id itself
    version_id       TEXT NOT NULL,
    version          INTEGER NOT NULL,
    status           TEXT NOT NULL, -- queued, extracting, chunking, embedding, indexing, indexed, failed
    error            TEXT,
    title            TEXT,
    description      TEXT,
    content_type     TEXT NOT NULL,
    content_url      TEXT NOT NULL,
    filename         TEXT NOT NULL,
    blob_key         TEXT NOT NULL, -- the file (or inline text) as received
    text_key         TEXT,          -- its extracted text
    sha256           TEXT NOT NULL, -- of the file, to answer duplicate uploads
    size_bytes       BIGINT NOT NULL,
    text_hash        TEXT,          -- of the text a crawl saw, to find changed pages
    metadata         TEXT NOT NULL, -- JSON object
    word_count       INTEGER,
    text_length      INTEGER,
    chunk_count      INTEGER,
    published_at     DATETIME,
    pulled_at        DATETIME NOT NULL,
    indexed_at       DATETIME,
    fired_version_id TEXT,          -- the version new_content agents were fired for
    created_at       DATETIME NOT NULL,
    updated_at       DATETIME NOT NULL
);
CREATE INDEX contents_source ON contents (source_id, created_at);
CREATE INDEX contents_account ON contents (account_id, created_at);
CREATE UNIQUE INDEX contents_item ON contents (source_id, item_key);
CREATE INDEX contents_sha ON contents (source_id, sha256);

-- Attachments agents write to a content item (write_content_attachment).
CREATE TABLE content_attachments (
    account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    content_id   TEXT NOT NULL REFERENCES contents (id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    content_type TEXT NOT NULL,
    body         TEXT NOT NULL,
    indexed      BOOLEAN NOT NULL,
    created_at   DATETIME NOT NULL,
    updated_at   DATETIME NOT NULL,
    PRIMARY KEY (content_id, key)
);

CREATE TABLE knowledge_bases (
    id                      TEXT PRIMARY KEY,
    account_id              TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name                    TEXT NOT NULL,
    description             TEXT,
    default_top_n           INTEGER,
    default_top_k           INTEGER,
    default_score_threshold DOUBLE PRECISION,
    reranker_model          TEXT,
    readonly                BOOLEAN NOT NULL,
    created_at              DATETIME NOT NULL,
    updated_at              DATETIME NOT NULL,
    deleted_at              DATETIME
);
CREATE INDEX knowledge_bases_account ON knowledge_bases (account_id, created_at);

CREATE TABLE knowledge_base_sources (
    knowledge_base_id TEXT NOT NULL REFERENCES knowledge_bases (id) ON DELETE CASCADE,
    source_id         TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    position          INTEGER NOT NULL,
    PRIMARY KEY (knowledge_base_id, source_id)
);
CREATE INDEX knowledge_base_sources_source ON knowledge_base_sources (source_id);

-- +goose Down
DROP TABLE knowledge_base_sources;
DROP TABLE knowledge_bases;
DROP TABLE content_attachments;
DROP TABLE contents;
DROP TABLE sources;
DROP TABLE source_urls;
