-- +goose Up
-- A knowledge base's search settings (an extension): a JSON object with
-- the settings set explicitly (mode, vector_weight, candidate_depth,
-- feedback); NULL or an absent key takes the default, which depends on
-- the embedders of the knowledge base's sources.
ALTER TABLE knowledge_bases ADD COLUMN search_settings TEXT;

-- +goose Down
ALTER TABLE knowledge_bases DROP COLUMN search_settings;
