-- +goose Up
-- Indexes for the console's pages at scale (issue 36).
--
-- The alerts inbox orders an account's alerts by (created_at, id), newest
-- first: with id in the index the page is read off it in order, with no
-- sort of the ties, and the count of an account's alerts reads the index
-- alone. It replaces alerts_account (account_id, created_at), its prefix.
CREATE INDEX alerts_account_created ON alerts (account_id, created_at, id);
DROP INDEX alerts_account;

-- A source's contents filtered by status (the knowledge source page's
-- filter) are found and counted in the index, not by reading every
-- content of the source.
CREATE INDEX contents_source_status ON contents (source_id, status, created_at);

-- +goose Down
DROP INDEX contents_source_status;
CREATE INDEX alerts_account ON alerts (account_id, created_at);
DROP INDEX alerts_account_created;
