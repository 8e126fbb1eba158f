-- +goose Up
-- Event streams: an ordered, durable log per stream (a run's events), so an
-- SSE client can resume from Last-Event-ID without gaps or duplicates.
CREATE TABLE event_streams (
    stream_id  TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    last_seq   BIGINT NOT NULL
);

CREATE TABLE events (
    stream_id  TEXT NOT NULL,
    seq        BIGINT NOT NULL,
    account_id TEXT NOT NULL,
    type       TEXT NOT NULL,
    data       TEXT NOT NULL,
    created_at DATETIME NOT NULL,
    PRIMARY KEY (stream_id, seq)
);

-- +goose Down
DROP TABLE events;
DROP TABLE event_streams;
