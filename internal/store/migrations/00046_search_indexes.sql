-- +goose Up
-- Account search (GET /search) reads each resource table's names and
-- descriptions for one account: covering indexes let it scan them without
-- visiting the table rows.
CREATE INDEX agents_search ON agents (account_id, name, description) WHERE deleted_at IS NULL;
CREATE INDEX knowledge_bases_search ON knowledge_bases (account_id, name, description) WHERE deleted_at IS NULL;
CREATE INDEX solutions_search ON solutions (account_id, name, description);

-- +goose Down
DROP INDEX solutions_search;
DROP INDEX knowledge_bases_search;
DROP INDEX agents_search;
